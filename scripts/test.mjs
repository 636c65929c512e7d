// `npm test`: type-check and compile, bundle, run the unit tests (node's test runner, no editor: pure code or one small
// temp folder), the system tests (crashes, concurrency, hostile input, time limits, locks, the shipped bundles), the
// Claude Code suite (the real client, installed on demand into .cache/, judges what it loads), then the integration tests
// inside a real VS Code (code-server) when they exist: the newest VS Code, then the oldest that engines.vscode admits.
// Ends with "N passed, N failed".
// --unit, --system, --integration, --claude: only that stage (after compile and bundle; the lint steps run with the
// whole suite only); --compat: only the integration tests in the oldest VS Code (`npm run test:compat`). --unit is the
// inner loop (`npm run test:unit`, the "Unit tests" launch configuration): within a minute. Test files named after
// --unit or --system (`test/unit/store.test.ts`) run alone.
import { spawn } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = process.argv.slice(2);
const only = ['unit', 'system', 'integration', 'claude', 'compat'].find((stage) => args.includes(`--${stage}`)) ?? 'all';
/** Test files named on the command line, by their name without extension (`store.test`). */
const named = new Set(args.filter((a) => !a.startsWith('--')).map((a) => a.replace(/^.*[\\/]/, '').replace(/\.(ts|js)$/, '')));

function run(cmd, argv, { capture = false } = {}) {
  return new Promise((resolve) => {
    const child = spawn(cmd, argv, { cwd: root, stdio: ['ignore', capture ? 'pipe' : 'inherit', 'inherit'] });
    let out = '';
    if (capture) {
      child.stdout.on('data', (d) => {
        out += d;
        process.stdout.write(d);
      });
    }
    child.on('close', (code) => resolve({ code: code ?? 1, out }));
  });
}

const node = process.execPath;
const totals = { passed: 0, failed: 0 };
let failedStage = '';

const step = async (name, cmd, argv) => {
  console.log(`\n> ${name}`);
  const r = await run(cmd, argv);
  if (r.code !== 0) {
    console.error(`${name} failed (exit ${r.code})`);
    console.log(`0 passed, 1 failed`);
    process.exit(1);
  }
};

await step('compile (tsc)', node, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root]);
if (only === 'all') {
  // The layers' import rules and typescript-eslint's checks (eslint.config.mjs).
  await step('lint (eslint)', node, [join(root, 'node_modules', 'eslint', 'bin', 'eslint.js'), '--max-warnings=0', root]);
  // No export that nothing imports (knip.json): dead code goes instead of lingering.
  await step('unused exports (knip)', node, [join(root, 'node_modules', 'knip', 'bin', 'knip.js'), '--include', 'exports,types,nsExports,nsTypes,duplicates', '--directory', root]);
}
await step('bundle (esbuild)', node, [join(root, 'scripts', 'build.mjs'), '--no-typecheck']);

// Runs the compiled node:test files of out/test/<dir> and adds their counts to the totals.
const nodeTests = async (dir, stage) => {
  const testDir = join(root, 'out', 'test', dir);
  // Only the compiled files of tests that still exist there (a test moved to another folder leaves its old .js in out/).
  const files = readdirSync(testDir)
    .filter((f) => f.endsWith('.test.js') && existsSync(join(root, 'test', dir, f.replace(/\.js$/, '.ts'))))
    .filter((f) => !named.size || named.has(f.replace(/\.js$/, '')))
    .map((f) => join(testDir, f))
    // The biggest files (the longest to run, as a rule) first, so that no long one starts last and runs alone.
    .sort((a, b) => statSync(b).size - statSync(a).size);
  // Two files at a time: most tests wait on child processes (git, the CLI), not on a core.
  const r = await run(node, ['--test', '--test-concurrency=2', '--test-timeout=600000', '--test-reporter=tap', ...files], { capture: true });
  const pass = Number(/^# pass (\d+)/m.exec(r.out)?.[1] ?? 0);
  const fail = Number(/^# fail (\d+)/m.exec(r.out)?.[1] ?? (r.code ? 1 : 0));
  totals.passed += pass;
  totals.failed += fail;
  if (r.code !== 0) failedStage ||= stage;
};

if (only === 'all' || only === 'unit') {
  console.log('\n> unit tests (node --test)');
  await nodeTests('unit', 'unit');
}

if (only === 'all' || only === 'system') {
  console.log('\n> system tests (node --test)');
  await nodeTests('system', 'system');
}

// The real Claude Code client (pinned in scripts/harness/claude-code.mjs) decides whether a saved checkpoint reaches the
// agent: installed on first use into .cache/claude-code, then each test runs it offline in temp folders.
if ((only === 'all' || only === 'claude') && existsSync(join(root, 'out', 'test', 'claude'))) {
  console.log('\n> Claude Code suite: the real client judges what it loads (node --test)');
  const install = await run(node, [join(root, 'scripts', 'harness', 'claude-code.mjs')]);
  if (install.code !== 0) {
    console.error('The Claude Code suite did not run: the client could not be installed (see above).');
    totals.failed++;
    failedStage ||= 'claude';
  } else {
    await nodeTests('claude', 'claude');
  }
}

// The integration suites run in three windows: one trusted folder (most suites), Restricted Mode (workspace
// trust on: no git may run), and a multi-root workspace. Suites that do not apply to a window skip themselves.
const runner = join(root, 'scripts', 'harness', 'run-integration.mjs');
if (only !== 'unit' && only !== 'system' && existsSync(runner) && existsSync(join(root, 'out', 'test', 'integration'))) {
  const passes = [
    { name: 'one trusted folder', args: [] },
    { name: 'Restricted Mode', args: ['--trust', '--grep', 'Restricted Mode'] },
  ];
  if (readFileSync(runner, 'utf8').includes("'multi-root'")) passes.push({ name: 'multi-root workspace', args: ['--multi-root', '--grep', '[Mm]ulti-root'] });
  // --claude: only the suites where Claude Code judges a checkpoint saved in the editor.
  if (only === 'claude') passes.splice(0, passes.length, { name: 'Claude Code suites', args: ['--grep', 'Claude Code loads'] });
  // The same windows in the oldest VS Code of the engines range (vscode-env.mjs), where suites needing a newer API skip.
  const oldest = passes.map((pass) => ({ name: `${pass.name}, oldest VS Code`, args: [...pass.args, '--vscode', 'oldest'] }));
  if (only === 'compat') passes.splice(0, passes.length, ...oldest);
  else if (only !== 'claude') passes.push(...oldest);
  for (const pass of passes) {
    console.log(`\n> integration tests in a real VS Code (code-server): ${pass.name}`);
    const r = await run(node, [runner, ...pass.args], { capture: true });
    const m = /^(\d+) passed, (\d+) failed/m.exec(r.out);
    totals.passed += Number(m?.[1] ?? 0);
    totals.failed += Number(m?.[2] ?? (r.code ? 1 : 0));
    if (r.code !== 0) failedStage ||= `integration (${pass.name})`;
  }
}

console.log(`\n${totals.passed} passed, ${totals.failed} failed`);
process.exit(failedStage || totals.failed ? 1 : 0);
