'use strict';
// Floor for a save with its code snapshot, step for step as the product takes it, from a plain Node script (no
// libraries, no lock, no checks): git's status scan and where the repository keeps its files, an lstat of each changed
// path, update-index into a snapshot index of its own that persists between runs, write-tree, commit-tree, the
// checkpoint written through a temp file, an fsync and a rename (and the folder's fsync), MEMORY.md the same way, and
// update-ref. What separates it from the peer is the design; what separates the CLI from it is the product's own work.
// Usage (cwd = the repository): node floor-snapshot-steps.cjs <memory dir>
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const mem = process.argv[2];
const [top] = execFileSync('git', ['rev-parse', '--show-toplevel', '--git-path', 'index'], { encoding: 'utf8' }).split('\n');
const status = execFileSync('git', ['status', '--porcelain=v2', '--branch', '-z', '--untracked-files=normal'], { encoding: 'utf8', maxBuffer: 64 << 20 });
const records = status.split('\0').filter((r) => r && !r.startsWith('#'));
const paths = records.map((r) => (r.startsWith('? ') ? r.slice(2) : r.split(' ').slice(8).join(' ')));
const head = /# branch\.oid ([0-9a-f]+)/.exec(status)[1];
for (const p of paths) fs.lstatSync(path.join(top, p), { throwIfNoEntry: false });
const own = path.join(top, '.git', 'floor-snapshot-index');
if (!fs.existsSync(own)) fs.copyFileSync(path.join(top, '.git', 'index'), own);
const env = { ...process.env, GIT_INDEX_FILE: own };
execFileSync('git', ['update-index', '--add', '--remove', '--replace', '-z', '--stdin'], { env, input: paths.map((p) => `${p}\0`).join('') });
const tree = execFileSync('git', ['write-tree'], { env, encoding: 'utf8' }).trim();
const commit = execFileSync('git', ['commit-tree', '--no-gpg-sign', tree, '-p', head, '-m', 'checkpoint: floor'], { encoding: 'utf8' }).trim();
const durable = (file, text) => {
  const tmp = `${file}.floor-${process.pid}`;
  const fd = fs.openSync(tmp, 'wx');
  fs.writeSync(fd, text);
  fs.fsyncSync(fd);
  fs.closeSync(fd);
  fs.renameSync(tmp, file);
  const dir = fs.openSync(path.dirname(file), 'r');
  fs.fsyncSync(dir);
  fs.closeSync(dir);
};
const saved = new Date().toISOString();
durable(
  path.join(mem, 'checkpoint-floor.md'),
  `---\nname: floor\ndescription: floor\nbranch: main\nsaved: ${saved}\nsnapshot: "${commit}"\n---\n# Checkpoint: floor\n## Left Off\nfloor\n## Modified Files\n${paths.map((p) => `- ${p}`).join('\n')}\n`,
);
const index = path.join(mem, 'MEMORY.md');
durable(index, fs.readFileSync(index, 'utf8').replace(/^- \*\*bench\*\*.*$/m, `- **bench** (main) — floor ${saved}`));
execFileSync('git', ['update-ref', 'refs/checkpoints/snapshots/floor', commit]);
