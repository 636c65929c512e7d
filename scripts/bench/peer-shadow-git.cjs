// The peer for the snapshot rows: a Cline-style checkpoint. A fresh Node process records the work tree into a
// shadow git repository of its own (its own index, so it re-hashes only what changed since its last checkpoint):
// `git add -A`, then `git commit`, with GIT_DIR pointing at the shadow repository and the work tree at the project.
// Usage: node peer-shadow-git.cjs <shadow git dir> <work tree>
'use strict';
const { execFileSync } = require('node:child_process');

const [shadow, workTree] = process.argv.slice(2);
const env = { ...process.env, GIT_DIR: shadow, GIT_WORK_TREE: workTree };
execFileSync('git', ['add', '-A'], { cwd: workTree, env, stdio: 'ignore' });
execFileSync('git', ['-c', 'user.name=peer', '-c', 'user.email=peer@localhost', 'commit', '-q', '--allow-empty', '--no-verify', '-m', 'checkpoint'], {
  cwd: workTree,
  env,
  stdio: 'ignore',
});
