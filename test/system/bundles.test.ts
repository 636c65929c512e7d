// What each run of the shipped CLI loads: `checkpoint hook session-start` runs at every agent start, so it loads the
// entry and the hook's bundle and nothing else, and reads through the thread pool (node:fs/promises: its time limit
// holds while a read hangs), where the other commands read inline; the libraries loaded on first use come from their own files, once. Checked by running the built bundles (`node scripts/build.mjs`)
// with a preload that reports every module loaded.
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
  const r = spawnSync(process.execPath, ['--require', tracer, CLI, ...args], { cwd: opts.cwd, env: isolatedEnv(opts.home), input: opts.input ?? '', encoding: 'utf8' });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  assert.ok(line, `the process reported what it loaded: ${r.stderr}`);
  const loaded = (JSON.parse(line.slice('LOADED '.length)) as string[]).filter((f) => path.dirname(f) === DIST).map((f) => path.basename(f));
  return { code: r.status, out: r.stdout, loaded: loaded.sort(), fsPromises: r.stderr.includes('\nPROMISES true') };
}

test('a Claude Code session start loads the entry and the hook alone; a save loads the lock but no YAML parser', () => {
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
  assert.deepEqual(start.loaded, ['cli.js', 'hook.js']);
  assert.equal(start.fsPromises, true, 'a session start reads through the thread pool');
  const list = runTraced(['list', '--dir', mem], { cwd: repo, home });
  assert.equal(list.code, 0);
  assert.equal(list.fsPromises, false, 'a listing reads inline');
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

test('the lazily loaded libraries are files of their own, not copies inside the bundles', () => {
  const bundles = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  for (const lib of ['gray-matter.js', 'proper-lockfile.js', 'jsonc-parser.js', 'schemas.js', 'toolSchemas.js']) assert.ok(bundles.includes(lib), lib);
  // The extension is one file: no split pieces beside it.
  assert.deepEqual(bundles.filter((f) => f.startsWith('ext-')), [], 'the extension is dist/extension.js alone');
  // A string of each library's own code: graceful-fs, proper-lockfile, js-yaml (under gray-matter), jsonc-parser and
  // zod. The MCP server's SDK uses zod itself; the extension loads the tools' input schemas (and zod) on first use.
  const libraries = 'graceful-fs\\.queue|ECOMPROMISED|YAMLException|InvalidCommentToken';
  const extensionText = readFileSync(path.join(DIST, 'extension.js'), 'utf8');
  const markers: Record<string, [string, RegExp]> = {
    'extension.js': [extensionText, new RegExp(`${libraries}|\\$ZodType|StdioServerTransport`)],
    'mcpServer.js': [readFileSync(path.join(DIST, 'mcpServer.js'), 'utf8'), new RegExp(libraries)],
    'cli-main.js': [readFileSync(path.join(DIST, 'cli-main.js'), 'utf8'), new RegExp(`${libraries}|\\$ZodType|StdioServerTransport`)],
    'hook.js': [readFileSync(path.join(DIST, 'hook.js'), 'utf8'), new RegExp(`${libraries}|\\$ZodType|StdioServerTransport`)],
  };
  for (const [b, [text, marker]] of Object.entries(markers)) {
    assert.doesNotMatch(text, marker, `${b} carries no copy of a lazily loaded library`);
    assert.match(text, /\("\.\/(gray-matter|proper-lockfile|jsonc-parser|schemas)\.js"\)/, `${b} requires them from dist/`);
  }
  assert.match(extensionText, /\("\.\/toolSchemas\.js"\)/, 'the extension requires the tool schemas from dist/');
  assert.match(markers['cli-main.js'][0], /\("\.\/mcpServer\.js"\)/, '`checkpoint mcp` requires the MCP server from dist/');
  assert.match(extensionText, /\("vscode"\)/, 'the extension requires the vscode API');
  // The entry picks a bundle and loads it with its code cache (src/cli/codeCache.ts), after starting a save's status scan
  // (src/core/gitProcess.ts); no command's code is in it.
  const entry = readFileSync(CLI, 'utf8');
  assert.ok(entry.length < 12_288, 'dist/cli.js is only the entry');
  assert.doesNotMatch(entry, /Usage: checkpoint|hookSpecificOutput/, 'dist/cli.js holds no command');
});

test('each module built apart is in its own file only (a second copy would have classes of its own)', (t) => {
  const maps = readdirSync(DIST).filter((f) => f.endsWith('.js.map'));
  if (maps.length === 0) return t.skip('a production build has no source maps');
  // The module each file built apart starts from (scripts/build.mjs, APART), by how its source map names it.
  const apart: Record<string, RegExp> = {
    'gray-matter.js.map': /node_modules\/gray-matter\/index\.js$/,
    'proper-lockfile.js.map': /node_modules\/proper-lockfile\/index\.js$/,
    'jsonc-parser.js.map': /node_modules\/jsonc-parser\/lib\/esm\/main\.js$/,
    'schemas.js.map': /src\/core\/schemas\.ts$/,
    'toolSchemas.js.map': /src\/agent\/toolSchemas\.ts$/,
    'mcpServer.js.map': /src\/agent\/mcpServer\.ts$/,
    'hook.js.map': /src\/cli\/hookEntry\.ts$/,
    'cli-main.js.map': /src\/cli\/main\.ts$/,
  };
  const sources = (map: string) => (JSON.parse(readFileSync(path.join(DIST, map), 'utf8')) as { sources: string[] }).sources;
  for (const [own, entry] of Object.entries(apart)) {
    assert.ok(sources(own).some((f) => entry.test(f)), `${own} holds its module`);
    for (const map of maps.filter((m) => m !== own)) assert.ok(!sources(map).some((f) => entry.test(f)), `${map} carries no copy of ${entry}`);
  }
  assert.ok(sources('extension.js.map').some((f) => f.endsWith('src/core/store.ts')), 'the core is in the extension');
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
