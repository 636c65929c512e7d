// A hand-off between two clones of one remote, each with its own home folder and path (so its own Claude Code
// project folder), through the built CLI: `checkpoint push` in one, `checkpoint pull` in the other.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { mkdirSync, readFileSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { git, isolatedEnv, remotePair, removeDir, runCli, tempDir } from '../support/fixtures';

const root = realpathSync(tempDir('checkpoint-clones-'));
after(() => removeDir(root));

function write(dir: string, rel: string, text: string): void {
  mkdirSync(path.dirname(path.join(dir, rel)), { recursive: true });
  writeFileSync(path.join(dir, rel), text);
}

test('pulled into another clone: lands in the folder Claude Code loads there, pending, its plans resolve there, no secret crosses', async () => {
  const { a, b } = remotePair(root);
  const homeA = path.join(root, 'home-a');
  const homeB = path.join(root, 'home-b');
  for (const home of [homeA, homeB]) mkdirSync(path.join(home, '.claude', 'plans'), { recursive: true });
  const envA = isolatedEnv(homeA);
  const envB = isolatedEnv(homeB);
  const cli = async (cwd: string, env: NodeJS.ProcessEnv, args: string[]): Promise<string> => {
    const r = await runCli(args, { cwd, env });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    return r.out;
  };

  // A plan in the repository (committed, so both clones have it) and one in the home folder (on both machines).
  write(a, 'docs/plan.md', '# Plan\n- [x] one\n- [ ] two\n');
  git(a, 'add', 'docs/plan.md');
  git(a, 'commit', '-q', '-m', 'plan');
  git(a, 'push', '-q', 'origin', 'main');
  git(b, 'pull', '-q', '--ff-only');
  for (const home of [homeA, homeB]) write(home, '.claude/plans/later.md', '# Later\n- [ ] a\n');

  write(a, 'src/work.ts', 'work in progress\n');
  await cli(a, envA, ['save', 'in-repo-plan', '--left-off', 'halfway through the plan', '--plan', 'docs/plan.md']);
  await cli(a, envA, ['save', 'home-plan', '--left-off', 'later', '--plan', path.join(homeA, '.claude', 'plans', 'later.md')]);
  // A secret in the work tree: it never travels (the snapshot leaves it out).
  write(a, '.env', 'TOKEN=secret\n');
  await cli(a, envA, ['save', 'with-secret', '--left-off', 'with a .env around']);
  await cli(a, envA, ['push']);

  const pulled = JSON.parse(await cli(b, envB, ['pull', '--json'])) as { written: { name: string; path: string; snapshot?: string }[] };
  assert.deepEqual(pulled.written.map((w) => w.name).sort(), ['home-plan', 'in-repo-plan', 'with-secret']);
  // The folder Claude Code loads for this clone, in this home folder.
  const dir = JSON.parse(await cli(b, envB, ['dir', '--json'])) as { dir: string };
  assert.ok(dir.dir.startsWith(path.join(homeB, '.claude', 'projects') + path.sep), dir.dir);
  for (const w of pulled.written) assert.equal(path.dirname(w.path), dir.dir);
  const snapshot = pulled.written.find((w) => w.name === 'with-secret')?.snapshot;
  assert.ok(snapshot);
  const files = git(b, 'ls-tree', '-r', '--name-only', snapshot).split('\n');
  assert.ok(files.includes('src/work.ts') && !files.includes('.env'), files.join(', '));
  // No memory folder crossed either: the other machine's is outside its repository, and nothing of it is here.
  assert.ok(!files.some((f) => f.includes('.claude')), files.join(', '));

  // Pending there, and the plans are this clone's and this home folder's files.
  const pending = (JSON.parse(await cli(b, envB, ['pending', '--json'])) as { name: string }[]).map((p) => p.name).sort();
  assert.deepEqual(pending, ['home-plan', 'in-repo-plan', 'with-secret']);
  const show = async (name: string): Promise<{ plan?: string; planStep?: number; modifiedFiles: string[] }> => JSON.parse(await cli(b, envB, ['show', '--json', name])) as never;
  const inRepo = await show('in-repo-plan');
  assert.equal(inRepo.plan, path.join(b, 'docs', 'plan.md'));
  // Modified Files are relative to the repository: the same paths in this clone.
  assert.deepEqual(inRepo.modifiedFiles, ['src/']);
  assert.equal((await show('home-plan')).plan, path.join(homeB, '.claude', 'plans', 'later.md'));
  // Nothing of the other machine's paths is written here.
  for (const w of pulled.written) {
    const text = readFileSync(w.path, 'utf8');
    assert.ok(!text.includes(a) && !text.includes(homeA), `${w.name} names the other clone's paths:\n${text}`);
  }
});
