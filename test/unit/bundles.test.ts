// What each run of the shipped CLI loads: `checkpoint hook session-start` runs at every agent start, so it loads the
// entry and the hook's bundle and nothing else; the libraries loaded on first use come from their own files, once.
// Checked by running the built bundles (`node scripts/build.mjs`) with a preload that reports every module loaded.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, isolatedEnv, makeRepo, tempDirs } from '../support/fixtures';

const DIST = path.dirname(CLI);
const temp = tempDirs();

/** Runs the CLI; returns its output and the names of the dist/ files it loaded. */
function runTraced(args: string[], opts: { cwd: string; home: string; input?: string }): { code: number | null; out: string; loaded: string[] } {
  const tracer = path.join(opts.home, 'trace.cjs');
  writeFileSync(tracer, `process.on('exit', () => process.stderr.write('\\nLOADED ' + JSON.stringify(Object.keys(require.cache)) + '\\n'));\n`);
  const r = spawnSync(process.execPath, ['--require', tracer, CLI, ...args], { cwd: opts.cwd, env: isolatedEnv(opts.home), input: opts.input ?? '', encoding: 'utf8' });
  const line = r.stderr.split('\n').find((l) => l.startsWith('LOADED '));
  assert.ok(line, `the process reported what it loaded: ${r.stderr}`);
  const loaded = (JSON.parse(line.slice('LOADED '.length)) as string[]).filter((f) => path.dirname(f) === DIST).map((f) => path.basename(f));
  return { code: r.status, out: r.stdout, loaded: loaded.sort() };
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
});

test('the lazily loaded libraries are files of their own, not copies inside the bundles', () => {
  const bundles = readdirSync(DIST).filter((f) => f.endsWith('.js'));
  for (const lib of ['gray-matter.js', 'proper-lockfile.js', 'jsonc-parser.js', 'schemas.js', 'toolSchemas.js']) assert.ok(bundles.includes(lib), lib);
  // A string of each library's own code: graceful-fs, proper-lockfile, js-yaml (under gray-matter), jsonc-parser and
  // zod. The MCP server's SDK uses zod itself; the extension loads the tools' input schemas (and zod) on first use.
  const libraries = 'graceful-fs\\.queue|ECOMPROMISED|YAMLException|InvalidCommentToken';
  const markers: Record<string, RegExp> = {
    'extension.js': new RegExp(`${libraries}|\\$ZodType`),
    'mcpServer.js': new RegExp(libraries),
    'cli-main.js': new RegExp(`${libraries}|\\$ZodType`),
    'hook.js': new RegExp(`${libraries}|\\$ZodType`),
  };
  for (const [b, marker] of Object.entries(markers)) {
    const text = readFileSync(path.join(DIST, b), 'utf8');
    assert.doesNotMatch(text, marker, `${b} carries no copy of a lazily loaded library`);
    assert.match(text, /require\("\.\/(gray-matter|proper-lockfile|jsonc-parser|schemas)\.js"\)/, `${b} requires them from dist/`);
  }
  const extension = readFileSync(path.join(DIST, 'extension.js'), 'utf8');
  assert.match(extension, /require\("\.\/toolSchemas\.js"\)/, 'the extension requires the tool schemas from dist/');
  // Each module's `import * as vscode` shares one copy of the API's properties, made once at load (scripts/build.mjs).
  assert.equal(extension.match(/require\("vscode"\)/g)?.length, 1, 'the vscode API is required (and copied) once');
  assert.ok(readFileSync(CLI, 'utf8').length < 1024, 'dist/cli.js is only the entry');
});
