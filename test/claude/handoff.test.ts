// The real Claude Code client judges the hand-off between two clones: a checkpoint pushed from one clone (one home
// folder, one path) and pulled in another clone of the same remote (another home folder, another path, so another
// Claude Code project folder) is in the MEMORY.md the second clone's next session loads, and its SessionStart hook
// tells the session about it with the plan as that clone's file (test/support/claudeCode.ts: no network).
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, realpathSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { claudeTargets, connectClaude, hookProgram } from '../../src/core/claudeSettings';
import { shellQuote } from '../../src/core/escaping';
import { writeLaunchers } from '../../src/core/launcher';
import { runClaude } from '../support/claudeCode';
import { CLI, git, remotePair, removeDir, runCli, tempDir } from '../support/fixtures';

const root = realpathSync(tempDir('checkpoint-claude-clones-'));
after(() => removeDir(root));

const env = (home: string): NodeJS.ProcessEnv => ({ PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' });

test('a checkpoint pushed from one clone and pulled in another reaches the second clone’s next session', async () => {
  const { a, b } = remotePair(root);
  const homeA = path.join(root, 'home-a');
  const homeB = path.join(root, 'home-b');
  for (const home of [homeA, homeB]) mkdirSync(path.join(home, '.claude'), { recursive: true });
  mkdirSync(path.join(a, 'docs'));
  writeFileSync(path.join(a, 'docs', 'plan.md'), '# Plan\n- [x] parse\n- [ ] emit\n');
  git(a, 'add', 'docs/plan.md');
  git(a, 'commit', '-q', '-m', 'plan');
  git(a, 'push', '-q', 'origin', 'main');
  git(b, 'pull', '-q', '--ff-only');

  const run = async (cwd: string, home: string, args: string[]): Promise<string> => {
    const r = await runCli(args, { cwd, env: env(home) });
    assert.equal(r.code, 0, `${args.join(' ')}: ${r.err}`);
    return r.out;
  };
  await run(a, homeA, ['save', 'emitter', '--left-off', 'Parser done; the emitter is next', '--plan', 'docs/plan.md']);
  await run(a, homeA, ['push']);
  const pulled = JSON.parse(await run(b, homeB, ['pull', '--json'])) as { written: { name: string; path: string }[] };
  assert.deepEqual(pulled.written.map((w) => w.name), ['emitter']);

  const launchers = await writeLaunchers(path.join(root, 'bin'), { execPath: process.execPath, cliPath: CLI });
  await connectClaude(claudeTargets('workspace', b, env(homeB)), hookProgram('workspace', shellQuote(launchers.posix)));
  const s = await runClaude({ cwd: b, home: homeB, env: { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` } });

  // In the MEMORY.md the client loaded for this clone, and in the memory folder it names.
  assert.equal(s.memory.length, 1, `Claude Code loaded no MEMORY.md; the checkpoint was pulled to ${pulled.written[0].path}`);
  assert.match(s.memory[0].content, /^- \*\*emitter\*\* \(main, [A-Z][a-z]{2} \d{1,2}\) — Parser done; the emitter is next$/m, s.memory[0].content);
  assert.ok(s.memoryDir && existsSync(path.join(s.memoryDir, 'checkpoint-emitter.md')), `checkpoint-emitter.md is not in ${s.memoryDir}`);
  // Pending there: the SessionStart hook tells the session, with the plan as this clone's file.
  const context = s.hookContext;
  assert.match(context, /Pending checkpoint of earlier work in this project: "emitter"/, context || '(no hook context)');
  assert.ok(context.includes(`Plan: ${path.join(b, 'docs', 'plan.md')} (step 2 of 2)`), context);
  assert.match(context, /^Since saved: /m, context);
  assert.ok(!context.includes(a) && !context.includes(homeA), `the context names the other clone:\n${context}`);
});
