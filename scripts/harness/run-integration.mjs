// Runs the mocha integration suites inside a real VS Code extension host (code-server + headless chromium).
// Builds nothing: expects dist/extension.js and out/test/integration/**/*.test.js (npm run build && npm run compile-tests).
//
// Usage: node scripts/harness/run-integration.mjs [options]
//   --grep X               only tests whose full title matches the regular expression X (as mocha --grep)
//   --extension-dir DIR    extension folder to test instead of this repo (its package.json names it)
//   --vsix FILE            test this package instead, installed as a user installs it (--install-extension)
//   --files a.js,b.js      compiled test files instead of out/test/integration/**/*.test.js
//   --timeout MS           overall limit for the test run (default 600000)
//   --test-timeout MS      mocha per-test timeout (default 20000)
//   --trust                keep Workspace Trust on: the folder opens in Restricted Mode
//   --multi-root           open a multi-root workspace (a .code-workspace file) of two git repositories
//   --vscode oldest        run in the oldest VS Code that package.json's engines.vscode admits (default: latest)
//   --screenshot FILE      save a PNG of the workbench when the run ends
//   --verbose              echo code-server's output
//   --keep                 keep the temp folders (paths are printed)
//
// The extension host sees: CHECKPOINT_TEST_WORKSPACE (the open folder, a git repo on branch main with one
// commit; with --multi-root the first of the two folders), CHECKPOINT_TEST_WORKSPACE_FILE (with --multi-root:
// the .code-workspace file opened, listing both folders; else unset), HOME and CLAUDE_CONFIG_DIR (temp
// folders; HOME has a .gitconfig with a test identity), CHECKPOINT_TEST_DRIVER (the address that answers dialogs and
// presses notification buttons in the page: scripts/harness/workbench-driver.mjs).
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureVSCodeEnv } from './vscode-env.mjs';
import { startWorkbenchDriver } from './workbench-driver.mjs';
import { launchBrowser, openWorkbench, registerCleanup, stageRepoExtension, startCodeServer, tailFile } from './code-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const runnerExtension = join(root, 'test', 'runner-extension');

const { values: opts } = parseArgs({
  options: {
    grep: { type: 'string' },
    'extension-dir': { type: 'string' },
    vsix: { type: 'string' },
    files: { type: 'string' },
    timeout: { type: 'string', default: '600000' },
    'test-timeout': { type: 'string', default: '20000' },
    trust: { type: 'boolean', default: false },
    'multi-root': { type: 'boolean', default: false },
    vscode: { type: 'string', default: 'latest' },
    screenshot: { type: 'string' },
    verbose: { type: 'boolean', default: false },
    keep: { type: 'boolean', default: false },
  },
});

function findTests(dir) {
  if (!existsSync(dir)) return [];
  return readdirSync(dir, { recursive: true })
    .filter((f) => String(f).endsWith('.test.js'))
    .map((f) => join(dir, String(f)))
    .sort();
}

function git(cwd, args, env) {
  execFileSync('git', args, { cwd, env, stdio: ['ignore', 'ignore', 'pipe'] });
}

// A real git repository for the window to open (tests make their own repos for their cases).
function makeWorkspace(dir, env) {
  mkdirSync(dir, { recursive: true });
  git(dir, ['init', '-q', '-b', 'main'], env);
  git(dir, ['config', 'user.name', 'Checkpoint Test'], env);
  git(dir, ['config', 'user.email', 'test@checkpoint.invalid'], env);
  git(dir, ['config', 'commit.gpgsign', 'false'], env);
  writeFileSync(join(dir, 'README.md'), '# integration test workspace\n');
  git(dir, ['add', 'README.md'], env);
  git(dir, ['commit', '-q', '-m', 'initial commit'], env);
}

const mark = { passed: '✓', failed: '✗', pending: '-' };

async function main() {
  const started = Date.now();
  const { vscodeVersion } = await ensureVSCodeEnv({ quiet: false, vscode: opts.vscode });

  const files = opts.files
    ? opts.files.split(',').filter(Boolean).map((f) => resolve(f))
    : findTests(join(root, 'out', 'test', 'integration'));
  if (!files.length) throw new Error('No compiled integration tests found (out/test/integration/**/*.test.js): run npm run compile-tests');
  for (const f of files) if (!existsSync(f)) throw new Error(`Test file not found: ${f}`);

  const temp = mkdtempSync(join(tmpdir(), 'checkpoint-it-'));
  const unregisterTemp = registerCleanup({
    sync: () => !opts.keep && rmSync(temp, { recursive: true, force: true }),
    async: async () => !opts.keep && rmSync(temp, { recursive: true, force: true }),
  });
  const home = join(temp, 'home');
  const claudeDir = join(temp, 'claude');
  const workspace = join(temp, 'workspace');
  mkdirSync(home, { recursive: true });
  mkdirSync(claudeDir, { recursive: true });
  // Identity for repos the tests create; HOME is this folder for git and everything else.
  writeFileSync(
    join(home, '.gitconfig'),
    '[user]\n\tname = Checkpoint Test\n\temail = test@checkpoint.invalid\n[init]\n\tdefaultBranch = main\n[commit]\n\tgpgsign = false\n',
  );
  const gitEnv = { ...process.env, HOME: home, GIT_CONFIG_NOSYSTEM: '1' };
  makeWorkspace(workspace, gitEnv);
  // --multi-root: a second repository and a .code-workspace file listing both (paths relative to the file).
  let workspaceFile;
  if (opts['multi-root']) {
    const second = join(temp, 'workspace-2');
    makeWorkspace(second, gitEnv);
    workspaceFile = join(temp, 'checkpoint-it.code-workspace');
    writeFileSync(workspaceFile, JSON.stringify({ folders: [{ path: 'workspace' }, { path: 'workspace-2' }], settings: {} }, null, 2));
  }
  const opened = workspaceFile ?? workspace;

  const extensionDir = opts.vsix ? undefined : opts['extension-dir'] ? resolve(opts['extension-dir']) : stageRepoExtension(join(temp, 'extension'));
  const tested = JSON.parse(readFileSync(join(extensionDir ?? root, 'package.json'), 'utf8'));
  const extensionId = `${tested.publisher}.${tested.name}`;
  const resultFile = join(temp, 'result.json');
  const progressFile = join(temp, 'progress.jsonl');
  const configFile = join(temp, 'config.json');
  let mochaPath = join(root, 'node_modules', 'mocha');
  try {
    mochaPath = dirname(createRequire(import.meta.url).resolve('mocha/package.json'));
  } catch {
    /* a mocha whose exports hide package.json: keep the plain path */
  }
  writeFileSync(
    configFile,
    JSON.stringify(
      { mochaPath, files, resultFile, progressFile, timeout: Number(opts['test-timeout']), grep: opts.grep, extensionId },
      null,
      2,
    ),
  );
  if (opts.keep) console.log(`temp folder: ${temp}`);

  let server;
  let browser;
  let page;
  let printed = 0; // progress lines consumed
  let shown = 0; // test lines printed
  let running; // title of the test started last (for the timeout message)
  const printProgress = () => {
    if (!existsSync(progressFile)) return;
    const lines = readFileSync(progressFile, 'utf8').split('\n');
    // The last element is '' or a line still being written.
    for (; printed < lines.length - 1; printed++) {
      const e = JSON.parse(lines[printed]);
      if (e.state === 'running') {
        running = e.fullTitle;
        continue;
      }
      running = undefined;
      const ms = e.duration > 100 ? ` (${e.duration} ms)` : '';
      console.log(`  ${mark[e.state] ?? '?'} ${e.fullTitle}${ms}`);
      shown++;
    }
  };

  const driver = await startWorkbenchDriver(() => page);
  try {
    server = await startCodeServer({
      workspace: opened,
      extensionDirs: extensionDir ? [extensionDir, runnerExtension] : [runnerExtension],
      vsixFiles: opts.vsix ? [resolve(opts.vsix)] : [],
      copyExtensions: false,
      workspaceTrust: opts.trust,
      vscode: opts.vscode,
      verbose: opts.verbose,
      keepTemp: opts.keep,
      env: {
        HOME: home,
        CLAUDE_CONFIG_DIR: claudeDir,
        GIT_CONFIG_NOSYSTEM: '1',
        CHECKPOINT_TEST_WORKSPACE: workspace,
        ...(workspaceFile ? { CHECKPOINT_TEST_WORKSPACE_FILE: workspaceFile } : {}),
        CHECKPOINT_TEST_CONFIG: configFile,
        CHECKPOINT_TEST_DRIVER: driver.url,
      },
    });
    if (opts.keep) console.log(`code-server user data: ${server.userDataDir}`);
    browser = await launchBrowser();
    // The extension host only starts once a page opens the workbench.
    page = await openWorkbench(browser, server.url, opened);
    let crashed = false;
    page.on('crash', () => (crashed = true));
    if (workspaceFile) console.log(`multi-root workspace: ${workspaceFile}`);
    console.log(`VS Code ${vscodeVersion} ${server.url} ready after ${((Date.now() - started) / 1000).toFixed(1)} s; running ${files.length} test file(s)`);

    const deadline = Date.now() + Number(opts.timeout);
    let result;
    for (;;) {
      printProgress();
      if (existsSync(resultFile)) {
        result = JSON.parse(readFileSync(resultFile, 'utf8'));
        printProgress();
        break;
      }
      const configError = `${configFile}.error.json`;
      if (existsSync(configError)) throw new Error(`Runner extension could not read its config: ${readFileSync(configError, 'utf8')}`);
      if (crashed) throw new Error('The workbench page crashed');
      if (Date.now() > deadline) {
        const logs = server.exthostLogs();
        const tail = logs.length ? `${logs.at(-1)}:\n${tailFile(logs.at(-1), 60)}` : `(no extension host log yet)\ncode-server output:\n${server.log()}`;
        const where = running ? ` (still running: ${running})` : '';
        throw new Error(`No test results after ${opts.timeout} ms${where}. Extension host log tail:\n${tail}`);
      }
      await new Promise((r) => setTimeout(r, 250));
    }

    if (opts.screenshot) await page.screenshot({ path: resolve(opts.screenshot) });

    if (!shown) for (const t of result.tests) console.log(`  ${mark[t.state] ?? '?'} ${t.fullTitle}`);
    if (result.failures.length) {
      console.log('\nFailures:');
      result.failures.forEach((f, i) => {
        console.log(`\n  ${i + 1}) ${f.fullTitle}`);
        console.log(f.message.trimEnd().replace(/^(?=.)/gm, '     '));
        const frames = (f.stack || '').split('\n').filter((l) => /^\s+at /.test(l)).slice(0, 5);
        if (frames.length) console.log(frames.map((l) => `     ${l.trim()}`).join('\n'));
      });
    }
    let failed = result.failed;
    if (result.error) {
      failed++;
      console.log(`\nRunner error: ${result.error.message}\n${result.error.stack || ''}`);
    }
    if (!result.passed && !failed) console.log('\nNo test ran (check --grep and the test files).');
    console.log(`\n(${((Date.now() - started) / 1000).toFixed(1)} s in all)`);
    console.log(`${result.passed} passed, ${failed} failed${result.pending ? `, ${result.pending} skipped` : ''}`);
    return failed > 0 || result.passed === 0 ? 1 : 0;
  } finally {
    if (opts.screenshot && page && !existsSync(resolve(opts.screenshot))) {
      await page.screenshot({ path: resolve(opts.screenshot) }).catch(() => {});
    }
    await driver.close();
    await browser?.close().catch(() => {});
    await server?.stop();
    unregisterTemp();
    if (!opts.keep) rmSync(temp, { recursive: true, force: true });
  }
}

main().then(
  (code) => process.exit(code),
  (err) => {
    console.error(`\nIntegration run failed: ${err.message}`);
    process.exit(1);
  },
);
