#!/bin/sh
# Floor for `checkpoint save` with a code snapshot: the floor of a save without one (floor-save.cjs: Node, the
# branch and changed files from git, the checkpoint written through a temp file and a rename, MEMORY.md rewritten),
# then the snapshot's git plumbing run one command after the other from this shell script (index copy, add -A,
# write-tree, commit-tree, update-ref).
# Usage (cwd = the repository): NODE=<node> sh floor-save-snapshot.sh <memory dir>
set -e
mem="$1"
"${NODE:-node}" "$(dirname "$0")/floor-save.cjs" "$mem"
index=$(git rev-parse --show-toplevel --git-path index | sed -n 2p)
head=$(git rev-parse -q --verify 'HEAD^{commit}')
git ls-files -z --full-name --modified --others --exclude-standard -- :/ > /dev/null
git check-ref-format --normalize refs/checkpoints/snapshots/bench > /dev/null
tmp=$(mktemp -d)
cp "$index" "$tmp/index"
GIT_INDEX_FILE="$tmp/index" git -c core.splitIndex=false add -A
tree=$(GIT_INDEX_FILE="$tmp/index" git write-tree)
rm -rf "$tmp"
commit=$(git commit-tree --no-gpg-sign "$tree" -p "$head" -m 'checkpoint: bench')
git rev-parse -q --verify 'refs/checkpoints/snapshots/bench^{commit}' > /dev/null || true
git update-ref refs/checkpoints/snapshots/bench "$commit"
