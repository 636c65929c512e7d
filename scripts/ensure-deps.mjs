// Runs before `npm start` and `npm test` (npm's pre-scripts): installs the npm packages package-lock.json pins
// when node_modules is missing or older than the lock file, so both commands work on a fresh clone.
import { spawnSync } from 'node:child_process';
import { existsSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const lock = join(root, 'package-lock.json');
const installed = join(root, 'node_modules', '.package-lock.json');

const fresh = existsSync(installed) && statSync(installed).mtimeMs >= statSync(lock).mtimeMs;
if (!fresh) {
  console.log('Installing npm packages (npm ci)…');
  const npm = process.env.npm_execpath;
  const r = npm
    ? spawnSync(process.execPath, [npm, 'ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit' })
    : spawnSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: root, stdio: 'inherit', shell: process.platform === 'win32' });
  if (r.status !== 0) {
    console.error('npm ci failed: see the messages above.');
    process.exit(r.status ?? 1);
  }
}
