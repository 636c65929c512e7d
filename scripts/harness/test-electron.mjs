// Runs the integration suites in a VS Code downloaded by @vscode/test-electron. Needs network access to
// VS Code's download servers; where there is none, `npm test` runs the same suites in code-server instead.
import { runTests } from '@vscode/test-electron';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { execFileSync } from 'node:child_process';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const workspace = mkdtempSync(join(tmpdir(), 'checkpoint-electron-'));
const git = (...args) => execFileSync('git', args, { cwd: workspace });
git('init', '-q', '-b', 'main');
git('config', 'user.name', 'Checkpoint Test');
git('config', 'user.email', 'test@example.invalid');
git('config', 'commit.gpgsign', 'false');
writeFileSync(join(workspace, 'README.md'), '# test\n');
git('add', '-A');
git('commit', '-q', '-m', 'initial');

try {
  await runTests({
    extensionDevelopmentPath: root,
    extensionTestsPath: join(root, 'test', 'electron', 'index.js'),
    launchArgs: [workspace, '--disable-extensions', '--disable-workspace-trust'],
    extensionTestsEnv: { CHECKPOINT_TEST_WORKSPACE: workspace },
  });
} catch (err) {
  console.error(`Integration tests failed: ${err instanceof Error ? err.message : err}`);
  process.exit(1);
}
