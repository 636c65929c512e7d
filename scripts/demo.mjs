// Builds a demo workspace: a small git repository with a plan and two checkpoints saved on different
// branches through the real CLI (dist/cli.js). Used by `npm start` and the end-to-end tests.
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const cli = join(root, 'dist', 'cli.js');

const git = (cwd, ...args) => execFileSync('git', args, { cwd, stdio: ['ignore', 'pipe', 'pipe'] });
const save = (cwd, ...args) => execFileSync(process.execPath, [cli, 'save', ...args], { cwd, stdio: ['ignore', 'pipe', 'pipe'] });

/**
 * Creates the demo in `dir` (which must not exist or be empty). Checkpoints live in `<dir>/.claude/memory`
 * and plans in `<dir>/plans` (both set in the folder's .vscode/settings.json, so no home folder is touched).
 * With `checkpoints: false` the memory folder stays empty (the welcome view shows).
 */
export function createDemoWorkspace(dir, { checkpoints = true } = {}) {
  mkdirSync(join(dir, 'src', 'auth'), { recursive: true });
  mkdirSync(join(dir, 'plans'), { recursive: true });
  mkdirSync(join(dir, '.vscode'), { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'user.name', 'Demo');
  git(dir, 'config', 'user.email', 'demo@example.invalid');
  git(dir, 'config', 'commit.gpgsign', 'false');
  writeFileSync(join(dir, '.git', 'info', 'exclude'), '.claude/\n.vscode/\n');
  writeFileSync(join(dir, 'README.md'), '# Demo app\n\nA tiny app to try Checkpoint on.\n');
  writeFileSync(join(dir, 'src', 'auth', 'google.ts'), 'export function signIn(): void {\n  // TODO\n}\n');
  writeFileSync(join(dir, 'src', 'db.ts'), 'export const schemaVersion = 4;\n');
  writeFileSync(
    join(dir, 'plans', 'fix-auth-race.md'),
    '# Fix the auth race\n\n- [x] Reproduce the double refresh\n- [x] Add a provider registry entry\n- [ ] Wire the OAuth callback\n- [ ] Serialize token refresh\n- [ ] Tests for the race\n',
  );
  writeFileSync(
    join(dir, '.vscode', 'settings.json'),
    JSON.stringify({ 'checkpoint.memoryDirectory': '.claude/memory', 'checkpoint.plansDirectory': 'plans' }, null, 2),
  );
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'Demo app');
  if (!checkpoints) return dir;

  const mem = join(dir, '.claude', 'memory');
  git(dir, 'checkout', '-q', '-b', 'feature/oauth');
  writeFileSync(join(dir, 'src', 'auth', 'google.ts'), 'export function signIn(): void {\n  // wiring the callback\n}\n');
  save(dir, 'oauth-callback', '--dir', mem, '--plan', 'plans/fix-auth-race.md',
    '--left-off', 'Wiring the OAuth callback; token refresh still failing',
    '--done', 'Added provider registry entry',
    '--failed', 'Storing tokens in cookies — blocked by SameSite on the callback');
  git(dir, 'stash', '-q');
  git(dir, 'checkout', '-q', 'main');
  writeFileSync(join(dir, 'src', 'db.ts'), 'export const schemaVersion = 5;\n');
  save(dir, 'db-migration', '--dir', mem,
    '--left-off', 'Backfill script written; dry run pending',
    '--done', 'Wrote the backfill script',
    '--question', 'Run the backfill in batches of 1,000 or 10,000?');
  return dir;
}

if (process.argv[1] === fileURLToPath(import.meta.url)) {
  const dir = process.argv[2];
  if (!dir) {
    console.error('Usage: node scripts/demo.mjs <new folder>');
    process.exit(2);
  }
  createDemoWorkspace(dir);
  console.log(dir);
}
