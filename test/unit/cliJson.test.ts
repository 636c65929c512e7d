// Every command's --json output against the schema the package ships (schema/checkpoint-cli.schema.json): one
// checkpoint shape, one name per field, "warnings" everywhere, errors as {"error": {"code", "message"}} on stdout.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isolatedEnv, remotePair, removeDir, runCliInProcess, runCliSync, tempDirs, type ProcessResult } from '../support/fixtures';
import { validate } from '../support/jsonSchema';

const temp = tempDirs();
const home = temp('checkpoint-home-');
after(() => removeDir(home));
const env = isolatedEnv(home);
const SCHEMA = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'schema', 'checkpoint-cli.schema.json'), 'utf8')) as Record<string, unknown>;
const defs = SCHEMA.$defs as Record<string, Record<string, unknown>>;

/**
 * Runs a command with --json (in this process) and checks its stdout against the schema's shape for the command (or
 * `shape`).
 */
async function json(cwd: string, args: string[], opts: { shape?: string; code?: number } = {}): Promise<Record<string, unknown>> {
  const r: ProcessResult = await runCliInProcess([...args, '--json'], { cwd, env });
  assert.equal(r.code, opts.code ?? 0, `${args.join(' ')}: ${r.err}`);
  const value = JSON.parse(r.out) as Record<string, unknown>;
  const shape = opts.shape ?? args[0];
  assert.deepEqual(validate(SCHEMA, defs[shape], value), [], `${args.join(' ')} --json (${shape}):\n${r.out}`);
  assert.deepEqual(validate(SCHEMA, SCHEMA, value), [], `${args.join(' ')} --json against the whole schema`);
  return value;
}

const covered = new Set<string>();
const run = (cwd: string, args: string[], opts: { shape?: string; code?: number } = {}): Promise<Record<string, unknown>> => {
  covered.add(args[0]);
  return json(cwd, args, opts);
};

test('every command with --json prints one object of the schema\'s shape for it, with warnings; errors too', async () => {
  const root = temp();
  const { a, b } = remotePair(root);
  const mem = path.join(root, 'mem');
  const memB = path.join(root, 'mem-b');
  const d = ['--dir', mem];
  writeFileSync(path.join(a, 'wip.ts'), 'export const wip = 1;\n');
  const saved = await run(a, ['save', 'api', '--left-off', 'Routes wired', '--done', 'd1', '--failed', 'f1', '--decision', 'x', '--question', 'q', ...d]);
  assert.deepEqual(saved.failedApproaches, ['f1']);
  assert.equal(saved.plan, null);
  assert.equal(typeof saved.snapshot, 'string', 'a save says its snapshot');
  assert.deepEqual(saved.warnings, []);
  const again = await run(a, ['save', 'api', '--left-off', 'Routes tested', '--force', ...d]);
  assert.match(String(again.trashPath), /\.trash/);
  await run(a, ['save', 'ui', '--left-off', 'Form drawn', ...d]);
  await run(a, ['save', 'noleft', ...d]);
  assert.equal((await run(a, ['list', ...d])) instanceof Array, true);
  await run(a, ['pending', ...d]);
  const shown = await run(a, ['show', 'api', ...d]);
  assert.equal('failed' in shown, false, 'one name per field: failedApproaches only');
  await run(a, ['dir', ...d]);
  // No Claude Code set up in this HOME: doctor names that problem (exit 1), in its shape.
  const doctor = await run(a, ['doctor', ...d], { code: 1 });
  assert.equal(doctor.ok, false);
  await run(a, ['diff', 'api', ...d]);
  await run(a, ['branch', 'api', ...d]);
  await run(a, ['combine', 'both', 'api', 'ui', ...d]);
  await run(a, ['push', 'both', 'api', ...d]);
  await run(b, ['pull', '--dir', memB]);
  await run(a, ['resume', 'api', '--keep', ...d]);
  const resumed = await run(a, ['resume', 'api', ...d]);
  assert.equal(resumed.consumed, true);
  await run(a, ['delete', 'noleft', ...d]);
  await run(a, ['trash', ...d]);
  await run(a, ['restore', 'api', ...d]);
  await run(a, ['delete', '--all', ...d]);
  await run(a, ['restore', '--all', ...d]);
  await run(a, ['gc', '--older-than', '0', '--dry-run', ...d]);
  await run(a, ['gc', ...d]);
  // Errors: on stdout as {"error": {"code", "message"}}, the exit codes as without --json.
  const missing = await run(a, ['show', 'ap', ...d], { shape: 'error', code: 1 });
  assert.equal((missing.error as { code: string }).code, 'not-found');
  const usage = await run(a, ['save', 'x', '--nope', ...d], { shape: 'error', code: 2 });
  assert.equal((usage.error as { code: string }).code, 'usage');
  const exists = await run(a, ['save', 'ui', '--left-off', 'again', ...d], { shape: 'error', code: 1 });
  assert.equal((exists.error as { code: string }).code, 'exists');

  // Every command that prints JSON was run (hook, mcp and completion print none).
  const top = runCliSync(['--help'], { env }).out;
  const listed = [...top.matchAll(/^ {2}([a-z]+)\b/gm)].map((m) => m[1]).filter((c) => !['hook', 'mcp', 'completion'].includes(c));
  assert.deepEqual(listed.filter((c) => !(c in defs)), [], 'every command that prints JSON has its shape in the schema');
  const shared = ['warnings', 'summary', 'checkpoint', 'restoredCheckpoint', 'error', 'since'];
  assert.deepEqual([...covered].sort(), Object.keys(defs).filter((k) => !shared.includes(k)).sort());
});
