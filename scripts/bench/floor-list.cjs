'use strict';
// Floor for `checkpoint list --json`: a plain Node script reading every checkpoint file of the memory directory.
// Usage: node floor-list.cjs <memory dir>
const fs = require('node:fs');
const path = require('node:path');

const dir = process.argv[2];
let n = 0;
for (const f of fs.readdirSync(dir)) {
  if (!f.startsWith('checkpoint-') || !f.endsWith('.md')) continue;
  fs.readFileSync(path.join(dir, f), 'utf8');
  n++;
}
if (n === 0) process.exitCode = 3;
