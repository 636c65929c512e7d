'use strict';
// Floor for `checkpoint save`: the unavoidable work of a save done by a plain Node script (no libraries):
// the branch and the changed files from git, one temp+fsync+rename write of the checkpoint, a MEMORY.md rewrite.
// Usage (cwd = the repository): node floor-save.cjs <memory dir>
const { execFileSync } = require('node:child_process');
const fs = require('node:fs');
const path = require('node:path');

const mem = process.argv[2];
const branch = execFileSync('git', ['rev-parse', '--abbrev-ref', 'HEAD'], { encoding: 'utf8' }).trim();
const status = execFileSync('git', ['status', '--porcelain'], { encoding: 'utf8', maxBuffer: 64 << 20 });
const files = status.split('\n').filter(Boolean).map((l) => l.slice(3));
const saved = new Date().toISOString();
const content =
  `---\nname: bench\ndescription: floor\ntype: checkpoint\nbranch: ${branch}\nsaved: ${saved}\n---\n` +
  `# Checkpoint: bench\n## Left Off\nfloor\n## Modified Files\n${files.map((f) => `- ${f}`).join('\n')}\n`;
const file = path.join(mem, 'checkpoint-bench.md');
const tmp = path.join(mem, `.floor-tmp-${process.pid}`);
const fd = fs.openSync(tmp, 'wx');
fs.writeSync(fd, content);
fs.fsyncSync(fd);
fs.closeSync(fd);
fs.renameSync(tmp, file);
const index = path.join(mem, 'MEMORY.md');
const text = fs.readFileSync(index, 'utf8');
fs.writeFileSync(index, text.replace(/^- \*\*bench\*\*.*$/m, `- **bench** (${branch}) — floor`));
if (files.length === 0) process.exitCode = 3; // the fixture must have changes
