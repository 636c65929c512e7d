#!/bin/sh
# Floor for `checkpoint save` with a code snapshot: the same git plumbing, run one command after the other from a
# shell script (status for branch and files, then the snapshot: index copy, add -A, write-tree, commit-tree,
# update-ref), and the checkpoint written through a temp file and a rename.
# Usage (cwd = the repository): sh floor-save-snapshot.sh <memory dir>
set -e
mem="$1"
git status --porcelain=v2 --branch -z --untracked-files=normal > /dev/null
git rev-parse --show-toplevel --git-path index > /dev/null
head=$(git rev-parse -q --verify 'HEAD^{commit}')
git ls-files -z --full-name --modified --others --exclude-standard -- :/ > /dev/null
git check-ref-format --normalize refs/checkpoints/snapshots/bench > /dev/null
tmp=$(mktemp -d)
cp "$(git rev-parse --git-path index)" "$tmp/index"
GIT_INDEX_FILE="$tmp/index" git -c core.splitIndex=false add -A
tree=$(GIT_INDEX_FILE="$tmp/index" git write-tree)
rm -rf "$tmp"
commit=$(git commit-tree --no-gpg-sign "$tree" -p "$head" -m 'checkpoint: bench')
git rev-parse -q --verify 'refs/checkpoints/snapshots/bench^{commit}' > /dev/null || true
git update-ref refs/checkpoints/snapshots/bench "$commit"
printf -- '---\nname: bench\nhead: "%s"\nsnapshot: "%s"\n---\n# Checkpoint: bench\n' "$head" "$commit" > "$mem/.floor-tmp-$$"
mv "$mem/.floor-tmp-$$" "$mem/checkpoint-bench.md"
