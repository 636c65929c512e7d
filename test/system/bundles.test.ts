// What each run of the shipped CLI loads: every command, `checkpoint hook session-start` (run at every agent start)
// and `checkpoint mcp` too, loads the entry and the one CLI bundle, and the libraries it needs on first use from their
// own files, once. A session start reads through the thread pool (node:fs/promises: its time limit holds while a read
// hangs), where the other commands read inline. Checked by running the built bundles (`node scripts/build.mjs`) with a
// preload that reports every module loaded.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, isolatedEnv, makeRepo, tempDirs } from '../support/fixtures';

const DIST = path.dirname(CLI);
const temp = tempDirs();

/** Runs the CLI; returns its output, the names of the dist/ files it loaded and whether it loaded node:fs/promises. */
function runTraced(args: string[], opts: { cwd: string; home: string; input?: string }): { code: number | null; out: string; loaded: string[]; fsPromises: boolean } {
  const tracer = path.join(opts.home, 'trace.cjs');
  writeFileSync(
    tracer,
    `process.on('exit', () => process.stderr.write('\\nPROMISES ' + process.moduleLoadList.includes('NativeModule internal/fs/promises') + '\\nLOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n`,
  );
  const r = spawnSync(process.execPath, ['--require', tracer, CLI, ...args], { cwd: opts.cwd, env: isolatedEnv(opts.home), input: opts.input ?? '', encoding: 'utf8', timeout: 60_000 });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  assert.ok(line, `the process reported what it loaded: ${r.stderr}`);
  const loaded = (JSON.parse(line.slice('LOADED '.length)) as string[]).filter((f) => path.dirname(f) === DIST).map((f) => path.basename(f));
  return { code: r.status, out: r.stdout, loaded: loaded.sort(), fsPromises: r.stderr.includes('\nPROMISES true') };
}

test('a Claude Code session start loads the CLI bundle and no library; a save the lock but no YAML parser; `checkpoint mcp` the MCP SDK', () => {
  const repo = makeRepo({ dir: temp() });
  const home = temp();
  const mem = path.join(home, 'memory');
  const save = runTraced(['save', 'db-migration', '--dir', mem, '--left-off', 'backfill written'], { cwd: repo, home });
  assert.equal(save.code, 0);
  assert.deepEqual(save.loaded, ['cli-main.js', 'cli.js', 'proper-lockfile.js']);

  const input = JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
  const start = runTraced(['hook', 'session-start', '--dir', mem], { cwd: repo, home, input });
  assert.equal(start.code, 0);
  assert.match(JSON.parse(start.out).hookSpecificOutput.additionalContext, /"db-migration"/);
  assert.deepEqual(start.loaded, ['cli-main.js', 'cli.js']);
  assert.equal(start.fsPromises, true, 'a session start reads through the thread pool');
  const list = runTraced(['list', '--dir', mem], { cwd: repo, home });
  assert.equal(list.code, 0);
  assert.equal(list.fsPromises, false, 'a listing reads inline');

  // An MCP client that lists the tools and disconnects: the server ends with its stdin.
  const rpc = [
    { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '1' } } },
    { jsonrpc: '2.0', method: 'notifications/initialized' },
    { jsonrpc: '2.0', id: 2, method: 'tools/list', params: {} },
  ];
  const mcp = runTraced(['mcp', '--dir', mem], { cwd: repo, home, input: rpc.map((m) => `${JSON.stringify(m)}\n`).join('') });
  assert.equal(mcp.code, 0);
  const tools = (mcp.out.trim().split('\n').map((l) => JSON.parse(l) as { id?: number; result?: { tools?: { name: string }[] } }).find((m) => m.id === 2)?.result?.tools ?? []).map((t) => t.name);
  assert.deepEqual(tools.sort(), ['checkpoint_list', 'checkpoint_resume', 'checkpoint_save', 'checkpoint_show']);
  assert.deepEqual(mcp.loaded, ['cli-main.js', 'cli.js', 'mcpSdk.js', 'toolSchemas.js']);
});

test('a session start finds its memory folder wherever it comes from: Claude Code settings, a linked worktree, none pending', () => {
  const repo = makeRepo({ dir: temp() });
  const home = temp();
  mkdirSync(path.join(home, '.claude'), { recursive: true });
  writeFileSync(path.join(home, '.claude', 'settings.json'), JSON.stringify({ autoMemoryEnabled: true }));
  const input = (cwd: string, session: string): string => JSON.stringify({ session_id: session, cwd, hook_event_name: 'SessionStart', source: 'startup' });
  // Nothing saved yet: the JSON history is looked for, and nothing is said.
  const none = runTraced(['hook', 'session-start'], { cwd: repo, home, input: input(repo, 's0') });
  assert.equal(none.code, 0);
  assert.equal(none.out, '');
  const save = runTraced(['save', 'db-migration', '--left-off', 'backfill written'], { cwd: repo, home });
  assert.equal(save.code, 0);
  // Claude Code's folder for the project, found from a linked worktree too (its .git file and commondir read).
  const linked = path.join(temp(), 'linked');
  spawnSync('git', ['-C', repo, 'worktree', 'add', '-q', '-b', 'side', linked], { encoding: 'utf8' });
  for (const [cwd, session] of [[repo, 's1'], [linked, 's2']]) {
    const start = runTraced(['hook', 'session-start'], { cwd, home, input: input(cwd, session) });
    assert.equal(start.code, 0);
    assert.match(JSON.parse(start.out).hookSpecificOutput.additionalContext, /"db-migration"/, cwd);
  }
});

test('the libraries loaded on first use are files of their own, not copies inside the bundles', () => {
  const bundles = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  assert.deepEqual(bundles.sort(), ['cli-main.js', 'cli.js', 'extension.js', 'gray-matter.js', 'jsonc-parser.js', 'mcpSdk.js', 'proper-lockfile.js', 'schemas.js', 'toolSchemas.js']);
  // A string of each library's own code: graceful-fs, proper-lockfile, js-yaml (under gray-matter), jsonc-parser,
  // zod and the MCP SDK.
  const libraries = /graceful-fs\.queue|ECOMPROMISED|YAMLException|InvalidCommentToken|\$ZodType|roots\/list_changed/;
  for (const b of ['extension.js', 'cli-main.js']) {
    const text = readFileSync(path.join(DIST, b), 'utf8');
    assert.doesNotMatch(text, libraries, `${b} carries no copy of a lazily loaded library`);
    assert.match(text, /\("\.\/(gray-matter|proper-lockfile|jsonc-parser|schemas|toolSchemas)\.js"\)/, `${b} requires them from dist/`);
  }
  assert.match(readFileSync(path.join(DIST, 'cli-main.js'), 'utf8'), /\("\.\/mcpSdk\.js"\)/, '`checkpoint mcp` requires the MCP SDK from dist/');
  assert.match(readFileSync(path.join(DIST, 'extension.js'), 'utf8'), /\("vscode"\)/, 'the extension requires the vscode API');
  // The CLI's own modules are set up in one pass at load: none is wrapped to be set up on first use, as esbuild does
  // with a module that is required rather than imported (and with all that it imports).
  assert.doesNotMatch(readFileSync(path.join(DIST, 'cli-main.js'), 'utf8'), /\b__esm\(/, 'no module of the CLI is required lazily');
  // The entry loads the CLI bundle with its code cache (src/cli/codeCache.ts); no command's code is in it, and it
  // starts no git (a save runs its own).
  const entry = readFileSync(CLI, 'utf8');
  assert.ok(entry.length < 12_288, 'dist/cli.js is only the entry');
  assert.doesNotMatch(entry, /Usage: checkpoint|hookSpecificOutput/, 'dist/cli.js holds no command');
  assert.doesNotMatch(entry, /porcelain|child_process/, 'dist/cli.js runs no git');
});

test('each module is in one file of a runtime only: the core once in the CLI bundle and once in the extension', (t) => {
  const maps = readdirSync(DIST).filter((f) => f.endsWith('.js.map'));
  if (maps.length === 0) return t.skip('a production build has no source maps');
  const sources = (map: string) => (JSON.parse(readFileSync(path.join(DIST, map), 'utf8')) as { sources: string[] }).sources;
  // The module each file starts from (scripts/build.mjs), by how its source map names it.
  const own: Record<string, RegExp> = {
    'gray-matter.js.map': /node_modules\/gray-matter\/index\.js$/,
    'proper-lockfile.js.map': /node_modules\/proper-lockfile\/index\.js$/,
    'jsonc-parser.js.map': /node_modules\/jsonc-parser\/lib\/esm\/main\.js$/,
    'schemas.js.map': /src\/core\/schemas\.ts$/,
    'toolSchemas.js.map': /src\/agent\/toolSchemas\.ts$/,
    'mcpSdk.js.map': /node_modules\/@modelcontextprotocol\/sdk\/src\/server\/mcp\.ts$/,
    'cli-main.js.map': /src\/cli\/main\.ts$/,
    'extension.js.map': /src\/editor\/extension\.ts$/,
  };
  for (const [map, entry] of Object.entries(own)) {
    assert.ok(sources(map).some((f) => entry.test(f)), `${map} holds its module`);
    for (const other of maps.filter((m) => m !== map)) assert.ok(!sources(other).some((f) => entry.test(f)), `${other} carries no copy of ${entry}`);
  }
  // The whole CLI, the hook and the MCP server included, is one bundle; the core is in it and in the extension only.
  for (const f of [/src\/cli\/hook\.ts$/, /src\/agent\/mcpServer\.ts$/]) assert.ok(sources('cli-main.js.map').some((s) => f.test(s)), `${f} is in the CLI bundle`);
  const withCore = maps.filter((m) => sources(m).some((f) => f.endsWith('src/core/store.ts')));
  assert.deepEqual(withCore.sort(), ['cli-main.js.map', 'extension.js.map']);
});

test('activating the extension parses its one bundle and no library; the deferred start loads none either', () => {
  const workspace = temp();
  const stub = path.join(DIST, '..', 'scripts', 'bench', 'vscode-stub.cjs');
  // With a stand-in vscode API: require and activate(), note the dist/ files loaded, then again once the deferred
  // start (status bar, resume offer) has run.
  const script = `
    const path = require('node:path');
    const { installVscodeStub } = require(${JSON.stringify(stub)});
    const { context } = installVscodeStub({ workspace: ${JSON.stringify(workspace)}, extensionPath: ${JSON.stringify(path.dirname(DIST))} });
    const loaded = () => Object.keys(require.cache).filter((f) => path.dirname(f) === ${JSON.stringify(DIST)}).map((f) => path.basename(f)).sort();
    require(${JSON.stringify(path.join(DIST, 'extension.js'))}).activate(context);
    const activation = loaded();
    setTimeout(() => console.log(JSON.stringify({ activation, later: loaded() })), 1500);
  `;
  const r = spawnSync(process.execPath, ['-e', script], { cwd: workspace, env: isolatedEnv(temp()), encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stderr);
  const { activation, later } = JSON.parse(r.stdout.trim().split('\n').at(-1)!) as { activation: string[]; later: string[] };
  assert.deepEqual(activation, ['extension.js']);
  assert.deepEqual(later, ['extension.js'], 'an empty folder needs no YAML parser, lock, schemas or tool schemas');
});
