// An agent's slips never lose a checkpoint. The agent follows the seeds' skills and writes checkpoint files and
// MEMORY.md itself, in shapes that vary: front matter that does not parse, the index under its own heading and in its
// own bullet shapes, a body edited by hand, names in any script. Each is tried as a user meets it: through the CLI and
// the session-start hook (what a new Claude Code session is told).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, readdirSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, isolatedEnv, makeRepo, runCliInProcess, tempDirs, type ProcessResult } from '../support/fixtures';
import { corpusCheckpoint, installCorpus } from '../support/agentCorpus';
import { CheckpointExistsError, CheckpointStore } from '../../src/core/store';
import type { GitState } from '../../src/core/git';

const temp = tempDirs();

interface World {
  repo: string;
  mem: string;
  home: string;
  /** The CLI's commands, run in this process (the hook runs as the process Claude Code starts). */
  cli: (...args: string[]) => Promise<ProcessResult>;
  /** SessionStart's additionalContext for a new session ('' when the hook says nothing). */
  sessionStart: () => string;
}

let sessions = 0;

function world(opts: { corpus?: boolean } = {}): World {
  const home = temp('checkpoint-home-');
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(home, 'mem');
  mkdirSync(mem);
  if (opts.corpus) installCorpus(mem, home);
  const env = isolatedEnv(home);
  return {
    repo,
    mem,
    home,
    cli: (...args) => runCliInProcess([...args, '--dir', mem], { cwd: repo, env }),
    sessionStart: () => {
      const input = { session_id: `slips-${process.pid}-${++sessions}`, cwd: repo, hook_event_name: 'SessionStart', source: 'startup' };
      const r = spawnSync(process.execPath, [CLI, 'hook', 'session-start', '--dir', mem], { cwd: repo, env, input: JSON.stringify(input), encoding: 'utf8', timeout: 60_000 });
      assert.equal(r.status, 0, r.stderr);
      return r.stdout ? (JSON.parse(r.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext : '';
    },
  };
}

const index = (mem: string): string => readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');
const read = (mem: string, name: string): string => readFileSync(path.join(mem, `checkpoint-${name}.md`), 'utf8');
const pending = async (w: World): Promise<string[]> => (JSON.parse((await w.cli('pending', '--json')).out) as { name: string }[]).map((c) => c.name);
const trashed = (mem: string): string[] =>
  existsSync(path.join(mem, '.trash')) ? readdirSync(path.join(mem, '.trash')).flatMap((d) => readdirSync(path.join(mem, '.trash', d))) : [];
const RESUME = 'Resume any: `continue` or `continue {name}`';

test('front matter that does not parse (an unquoted ": ", a tab, a control byte) is skipped: the checkpoint is read by its body, said so, pending, resumable and indexed; never rewritten', async () => {
  const w = world();
  const slipped = ['login', 'tabbed', 'stray-byte'];
  for (const n of slipped) writeFileSync(path.join(w.mem, `checkpoint-${n}.md`), corpusCheckpoint(n));
  const before = Object.fromEntries(slipped.map((n) => [n, read(w.mem, n)]));

  // A new session is told about the slipped checkpoint (0.2.0: nothing).
  // The current branch's first (tabbed, on main, by its body), then the others with the branch their body names.
  const context = w.sessionStart();
  assert.match(context, /"tabbed", saved .* on branch main/);
  assert.match(context, /Left off: The agent indented a key with a space and a tab/);
  assert.match(context, /"login" \(saved [^)]*\), on fix\/login-cookie, another branch than main\)/);
  const pendingNow = await pending(w);
  assert.ok(slipped.every((n) => pendingNow.includes(n)), 'pending');

  const list = await w.cli('list');
  assert.equal(list.code, 0, list.err);
  for (const n of slipped) assert.match(list.out, new RegExp(`^${n} .*front matter skipped`, 'm'), `list says ${n}'s front matter was skipped`);
  const items = JSON.parse((await w.cli('list', '--json')).out) as { name: string; branch: string; description: string; unreadable: string | null; frontMatterSkipped: string | null }[];
  const login = items.find((i) => i.name === 'login')!;
  assert.equal(login.unreadable, null);
  assert.match(login.frontMatterSkipped ?? '', /invalid front matter/);
  assert.equal(login.branch, 'fix/login-cookie', 'the branch from the body');
  assert.match(items.find((i) => i.name === 'stray-byte')!.frontMatterSkipped ?? '', /front matter/);

  const show = await w.cli('show', 'login', '--raw');
  assert.equal(show.code, 0, show.err);
  assert.equal(show.out, `${corpusCheckpoint('login').trimEnd()}\n`);
  assert.match(show.err, /front matter skipped \(invalid front matter/);
  const json = JSON.parse((await w.cli('show', 'login', '--json')).out) as { failedApproaches: string[]; frontMatterSkipped: string };
  assert.deepEqual(json.failedApproaches, ['Setting SameSite=None — the proxy still drops the header']);

  // Nothing above wrote to the files; a save of another checkpoint indexes them and leaves them as they are.
  assert.equal((await w.cli('save', 'other', '--left-off', 'x')).code, 0);
  for (const n of slipped) {
    assert.equal(read(w.mem, n), before[n], `${n} never rewritten`);
    assert.match(index(w.mem), new RegExp(`^- \\*\\*${n}\\*\\* `, 'm'), `${n} is in the index`);
  }

  const resume = await w.cli('resume', 'login');
  assert.equal(resume.code, 0, resume.err);
  assert.match(resume.out, /cookie not set/);
  assert.ok(!index(w.mem).includes('**login**'), 'its bullet went with it');
  assert.ok(trashed(w.mem).includes('checkpoint-login.md'));
  assert.equal(readFileSync(path.join(w.mem, '.trash', readdirSync(path.join(w.mem, '.trash'))[0], 'checkpoint-login.md'), 'utf8'), before.login);
});

test('a file with no readable body either is shown raw with a manual-recovery line (show, resume), and left as it is', async () => {
  const w = world();
  const text = '---\ndescription: Broken: twice\n---\nonly some notes, no checkpoint heading\n';
  writeFileSync(path.join(w.mem, 'checkpoint-wreck.md'), text);
  const show = await w.cli('show', 'wreck');
  assert.equal(show.code, 1);
  assert.equal(show.out, text.trimEnd() + '\n', 'the raw text');
  assert.match(show.err, /unreadable/);
  assert.match(show.err, /Manual recovery: the text above is what could be read of .*checkpoint-wreck\.md/);
  assert.match((await w.cli('list')).out, /^wreck {2}\(unreadable: /m);
  const resume = await w.cli('resume', 'wreck');
  assert.equal(resume.code, 1, 'nothing consumed');
  assert.equal(resume.out, text.trimEnd() + '\n');
  assert.match(resume.err, /Manual recovery/);
  assert.equal(read(w.mem, 'wreck'), text);
});

test('the index in the agent\'s shapes: "### Active checkpoints", link, plain, indented and starred bullets are updated in place, removed with their checkpoint, and a person\'s lines are never touched', async () => {
  const w = world();
  for (const n of ['link-one', 'plain-one', 'indented-one', 'star-one']) {
    writeFileSync(path.join(w.mem, `checkpoint-${n}.md`), `# Checkpoint: ${n}\n\n- **Branch:** \`main\`\n- **Saved:** 2025-11-02 10:00\n\n## Left Off\n\n${n} old\n`);
  }
  const person = ['- **todo** buy milk', '- **groceries** (home, Nov 02) — eggs and flour'];
  const doc = [
    '# Project Memory',
    '',
    '### Active checkpoints',
    '- [link-one](checkpoint-link-one.md) — link-one old',
    '- plain-one (main, Nov 02) — plain-one old',
    '  - **indented-one** (main, Nov 02) — indented-one old',
    '* **star-one** (main, Nov 02) — star-one old',
    ...person,
    '',
    RESUME,
    '',
    '## Notes',
    '- keep me',
    '',
  ].join('\n');
  writeFileSync(path.join(w.mem, 'MEMORY.md'), doc);
  const namesOf = (n: string): number => index(w.mem).split('\n').filter((l) => l.includes(n)).length;

  for (const n of ['link-one', 'plain-one', 'indented-one', 'star-one']) {
    const r = await w.cli('save', n, '--left-off', `${n} new`, '--force');
    assert.equal(r.code, 0, r.err);
    assert.equal(namesOf(n), 1, `${n}: one line, updated in place`);
    assert.ok(index(w.mem).includes(`${n} new`), `${n}'s line says what it says now`);
  }
  const now = index(w.mem);
  assert.equal((now.match(/^#{2,3} Active Checkpoints$/gim) ?? []).length, 1, 'never a second section');
  assert.ok(now.startsWith('# Project Memory\n\n### Active checkpoints\n'), 'the agent\'s heading kept');
  assert.ok(now.endsWith(`${RESUME}\n\n## Notes\n- keep me\n`));
  for (const l of person) assert.ok(now.includes(`${l}\n`), `kept: ${l}`);

  assert.equal((await w.cli('resume', 'plain-one')).code, 0);
  assert.equal((await w.cli('delete', 'star-one')).code, 0);
  assert.equal(namesOf('plain-one') + namesOf('star-one'), 0, 'resume and delete remove the line');
  // A name that is no checkpoint: the person's line of that name stays (0.2.0 deleted "- **todo** buy milk").
  assert.equal((await w.cli('delete', 'todo')).code, 1);
  assert.equal((await w.cli('resume', 'todo')).code, 1);
  // delete --all takes every checkpoint's line and no person's, whatever its shape.
  assert.equal((await w.cli('delete', '--all')).code, 0);
  const after = index(w.mem);
  for (const l of person) assert.ok(after.includes(`${l}\n`), `delete --all kept: ${l}`);
  assert.equal(namesOf('link-one') + namesOf('indented-one'), 0);
  assert.ok(after.endsWith('## Notes\n- keep me\n'));
});

test('MEMORY.md: an unrelated save keeps a person\'s line of a bullet\'s shape; a section without its resume line ends at a ### subsection; save then delete leaves the file as it was', async () => {
  const w = world();
  const doc = '# Memory\n\n## Active Checkpoints\n- **mine** (home, Nov 02) — a line I wrote myself\n### Notes\n- **also-mine** (home, Nov 03) — under my own subsection\n';
  writeFileSync(path.join(w.mem, 'MEMORY.md'), doc);
  assert.equal((await w.cli('save', 'work', '--left-off', 'x')).code, 0);
  const now = index(w.mem);
  assert.ok(now.includes('- **mine** (home, Nov 02) — a line I wrote myself\n'), 'healing took no person\'s line');
  assert.ok(now.endsWith('### Notes\n- **also-mine** (home, Nov 03) — under my own subsection\n'), 'the subsection is not the section');
  assert.match(now, /^- \*\*work\*\* /m);
  assert.equal((await w.cli('delete', 'work')).code, 0);

  for (const start of ['# Title\nIntro right under the title.\n', '# Title\n\nIntro after a blank line.\n', '# Title\n']) {
    writeFileSync(path.join(w.mem, 'MEMORY.md'), start);
    assert.equal((await w.cli('save', 'round', '--left-off', 'x', '--force')).code, 0);
    assert.equal((await w.cli('delete', 'round')).code, 0);
    // A section goes between blank lines under the title: text right under the title keeps the blank line above it
    // that the section brought; any other start is as it was.
    const expected = start === '# Title\nIntro right under the title.\n' ? '# Title\n\nIntro right under the title.\n' : start;
    assert.equal(index(w.mem), expected, 'no blank line more after the title');
  }
});

test('a body edited by hand wins over stale front matter, and a file changed after its resume is pending again; the next save makes them agree', async () => {
  const w = world({ corpus: true });
  const items = JSON.parse((await w.cli('list', '--json')).out) as { name: string; branch: string; description: string; saved: string }[];
  const edited = items.find((i) => i.name === 'edited-body')!;
  assert.equal(edited.branch, 'feature/edited');
  assert.match(edited.description, /^The agent rewrote this Left Off by hand/);
  assert.equal(new Date(edited.saved).getHours(), 18, 'the body\'s Saved');

  // A checkpoint the product wrote, then edited by the agent.
  assert.equal((await w.cli('save', 'mine', '--left-off', 'first thought')).code, 0);
  const file = path.join(w.mem, 'checkpoint-mine.md');
  const edit = (from: RegExp, to: string): void => writeFileSync(file, readFileSync(file, 'utf8').replace(from, to));
  edit(/^first thought$/m, 'second thought, written by the agent');
  edit(/^- \*\*Branch:\*\* .*$/m, '- **Branch:** `feature/elsewhere`');
  const mine = (JSON.parse((await w.cli('show', 'mine', '--json')).out) as { branch: string; description: string });
  assert.deepEqual([mine.branch, mine.description], ['feature/elsewhere', 'second thought, written by the agent']);
  // The session start reads the body's too: on the body's branch it is that branch's checkpoint, offered first.
  spawnSync('git', ['checkout', '-q', '-b', 'feature/elsewhere'], { cwd: w.repo, timeout: 30_000 });
  const onItsBranch = w.sessionStart();
  assert.match(onItsBranch, /^Pending checkpoint of earlier work in this project: "mine", .* on branch feature\/elsewhere\./);
  assert.match(onItsBranch, /second thought, written by the agent/);
  spawnSync('git', ['checkout', '-q', 'main'], { cwd: w.repo, timeout: 30_000 });

  assert.equal((await w.cli('resume', 'mine', '--keep')).code, 0);
  assert.ok(!(await pending(w)).includes('mine'));
  edit(/^second thought.*$/m, 'third thought');
  // The change comes after the resume (a file system may keep whole seconds only).
  const later = new Date(Date.now() + 2000);
  utimesSync(file, later, later);
  assert.ok((await pending(w)).includes('mine'), 'changed after its resume: pending again');

  assert.equal((await w.cli('save', 'mine', '--left-off', 'fourth', '--force')).code, 0);
  assert.match(read(w.mem, 'mine'), /^description: fourth$/m);
});

test('names in any script: kept as typed (NFC, lowercase), found in either Unicode form; reserved device names and long names made safe', async () => {
  const w = world();
  let r = await w.cli('save', '名前', '--left-off', 'in Japanese');
  assert.equal(r.code, 0, r.err);
  assert.ok(existsSync(path.join(w.mem, 'checkpoint-名前.md')));
  r = await w.cli('save', 'Café Menu', '--left-off', 'prices');
  assert.equal(r.code, 0, r.err);
  assert.ok(existsSync(path.join(w.mem, 'checkpoint-café-menu.md')));
  // NFD spelling of the same name: the one lookup finds it.
  assert.equal((await w.cli('show', 'cafe\u0301-menu')).code, 0);
  assert.equal((await w.cli('show', 'Café Menu')).code, 0);
  assert.match(w.sessionStart(), /名前|café-menu/);
  assert.equal((await w.cli('save', 'CON', '--left-off', 'x')).code, 1);
  assert.equal((await w.cli('save', 'lpt1.txt', '--left-off', 'x')).code, 1);
  assert.equal((await w.cli('save', `${'ü'.repeat(70)}`, '--left-off', 'x')).code, 0);
  assert.ok(existsSync(path.join(w.mem, `checkpoint-${'ü'.repeat(64)}.md`)));
  assert.equal((await w.cli('save', 'a/../b', '--left-off', 'x')).code, 0);
  assert.ok(readdirSync(w.mem).every((f) => !f.includes('..')), 'no ".." in a name written');
});

test('names: a typed name holding "\\\\" finds its own file before the product\'s spelling; an agent\'s name holding "**" keeps one bullet', { skip: process.platform === 'win32' }, async () => {
  const w = world();
  for (const n of ['a\\b', 'a-b', 'x**y']) writeFileSync(path.join(w.mem, `checkpoint-${n}.md`), `# Checkpoint: ${n}\n\n## Left Off\n\n${n} left\n`);
  const r = await w.cli('resume', 'a\\b');
  assert.equal(r.code, 0, r.err);
  assert.ok(existsSync(path.join(w.mem, 'checkpoint-a-b.md')), 'a-b is not consumed');
  assert.ok(!existsSync(path.join(w.mem, 'checkpoint-a\\b.md')));
  for (let i = 0; i < 3; i++) assert.equal((await w.cli('save', `other-${i}`, '--left-off', 'x')).code, 0);
  assert.equal(index(w.mem).split('\n').filter((l) => l.includes('x**y')).length, 1, 'one bullet, not one more per write');
});

test('twin names: a save whose name another save took meanwhile in a spelling the lookup reads as the same looks it up again under the lock: refused as existing, or overwrites it with force', async () => {
  const root = temp();
  const mem = path.join(root, 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: true });
  // The save of "my-task" waits for its git scan; meanwhile another save writes "my_task".
  let reached!: () => void;
  const atScan = new Promise<void>((r) => (reached = r));
  let go!: (g: GitState) => void;
  const result = new Promise<GitState>((r) => (go = r));
  const scan = { then: (ok: (g: GitState) => unknown, ko?: (e: unknown) => unknown) => (reached(), result.then(ok, ko)) } as unknown as Promise<GitState>;
  const first = store.save({ name: 'my-task', leftOff: 'one', git: scan });
  await atScan;
  await new CheckpointStore({ memoryDir: mem, cwd: root, allowGit: false }).save({ name: 'my_task', leftOff: 'two' });
  go({ branch: '', modifiedFiles: [] });
  // Under the lock the save looks its name up again, finds "my_task", and is refused as a save over it would be.
  await assert.rejects(first, CheckpointExistsError);
  assert.deepEqual(readdirSync(mem).filter((f) => f.startsWith('checkpoint-')), ['checkpoint-my_task.md']);
  // With --force it overwrites that one: still no twin.
  const forced = store.save({ name: 'my-task', leftOff: 'three', force: true, git: { branch: '', modifiedFiles: [] } });
  assert.equal((await forced).checkpoint.name, 'my_task');
  assert.deepEqual(readdirSync(mem).filter((f) => f.startsWith('checkpoint-')), ['checkpoint-my_task.md']);
});

test('save: the restore hint is shell-quoted; a name chosen to start with auto- is no automatic checkpoint; --blocker; the active or recent plan taken and said, --no-plan', async () => {
  const w = world();
  writeFileSync(path.join(w.mem, 'checkpoint-My Feature.md'), '# Checkpoint: My Feature\n\n## Left Off\n\nthe agent\'s\n');
  const over = await w.cli('save', 'My Feature', '--left-off', 'again', '--force', '--no-plan');
  assert.equal(over.code, 0, over.err);
  assert.match(over.out, /\(checkpoint restore 'My Feature' --force(?: --dir \S+)? brings it back\)/);

  // Both voluntary, saved the same day: the newer first (0.2.0 put auto-review last, as if a hook had saved it).
  assert.equal((await w.cli('save', 'earlier', '--left-off', 'x')).code, 0);
  assert.equal((await w.cli('save', 'auto-review', '--left-off', 'my own review notes')).code, 0);
  assert.equal((await pending(w))[0], 'auto-review');

  const b = await w.cli('save', 'blocked', '--left-off', 'x', '--blocker', 'waiting on API keys', '--blocker', 'staging is down');
  assert.equal(b.code, 0, b.err);
  assert.match(read(w.mem, 'blocked'), /^## Blockers\n- waiting on API keys\n- staging is down\n/m);
  assert.deepEqual((JSON.parse((await w.cli('show', 'blocked', '--json')).out) as { blockers: string[] }).blockers, ['waiting on API keys', 'staging is down']);

  // No --plan: the plan changed most recently within the last day, said; --no-plan saves without one.
  const plans = path.join(w.home, '.claude', 'plans');
  mkdirSync(plans, { recursive: true });
  writeFileSync(path.join(plans, 'ship-it.md'), '# Ship it\n- [x] one\n- [ ] two\n');
  const planned = await w.cli('save', 'planned', '--left-off', 'x');
  assert.equal(planned.code, 0, planned.err);
  assert.match(planned.err, /^Plan: ~\/\.claude\/plans\/ship-it\.md \(the plan changed most recently, within the last day\); --no-plan saves without one\.$/m);
  assert.match(read(w.mem, 'planned'), /^plan: ~\/\.claude\/plans\/ship-it\.md$/m);
  assert.match(read(w.mem, 'planned'), /^planStep: 2$/m);
  const none = await w.cli('save', 'unplanned', '--left-off', 'x', '--no-plan');
  assert.equal(none.code, 0, none.err);
  assert.doesNotMatch(read(w.mem, 'unplanned'), /^plan:/m);
  // The active plan of .claude/state-index.json comes first.
  mkdirSync(path.join(w.repo, '.claude', 'plans'), { recursive: true });
  writeFileSync(path.join(w.repo, '.claude', 'plans', 'active-one.md'), '# Active\n- [ ] a\n');
  writeFileSync(path.join(w.repo, '.claude', 'state-index.json'), JSON.stringify({ active_plan: 'active-one' }));
  const active = await w.cli('save', 'active', '--left-off', 'x');
  assert.match(active.err, /^Plan: .*active-one\.md \(the active plan of \.claude\/state-index\.json\)/m);
  assert.equal((await w.cli('save', 'both', '--plan', 'x.md', '--no-plan')).code, 2);
});
