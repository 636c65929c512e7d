'use strict';
// Floor for `checkpoint hook session-start`: a plain Node script that reads the hook's JSON from stdin, MEMORY.md
// and the newest checkpoint (whose path it is given), and prints SessionStart's JSON output.
// Usage: node floor-session-start.cjs <memory dir> <newest checkpoint file>
const fs = require('node:fs');
const path = require('node:path');

const [dir, newest] = process.argv.slice(2);
const input = JSON.parse(fs.readFileSync(0, 'utf8'));
const index = fs.readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
const checkpoint = fs.readFileSync(newest, 'utf8');
const context = `${input.session_id} ${index.length} ${checkpoint.slice(0, 1500)}`;
process.stdout.write(`${JSON.stringify({ hookSpecificOutput: { hookEventName: 'SessionStart', additionalContext: context } })}\n`);
