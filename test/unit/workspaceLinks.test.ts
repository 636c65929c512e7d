// Links a cloned repository can ship. On 0.1.0 (commit 7104910) a workspace whose `.claude` (or `.claude/memory`) is
// a symbolic link to a folder elsewhere had checkpoints and MEMORY.md written there, and `show readme` of a
// `checkpoint-readme.md` linked to a file outside printed that file. Now the default `<workspace>/.claude/memory`
// refuses a link that leaves the workspace folder (the error names it), and checkpoint files are never read
// through a link.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readdirSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld } from '../support/attackWorld';
import { snapshotTree } from '../support/fixtures';

test('a workspace .claude or .claude/memory linked outside the workspace folder is refused, naming the link; a link inside is used (0.1.0: wrote outside)', async () => {
  const w = attackWorld();
  try {
    const outsideBefore = snapshotTree(w.outside);
    const claude = path.join(w.repo, '.claude');
    // No Claude Code folder in HOME and no --dir: the fallback <workspace>/.claude/memory applies.
    const cli = (args: string[]) => w.cli(args, { mem: '' });
    symlinkSync(w.outside, claude);
    for (const args of [['save', 'x', '--left-off', 'x'], ['list'], ['dir']]) {
      const r = await cli(args);
      assert.equal(r.code, 1, `${args[0]}: ${r.out}`);
      assert.match(r.err, /is a symbolic link to .*outside the workspace folder/);
      assert.ok(r.err.includes(claude), r.err);
    }
    assert.deepEqual(snapshotTree(w.outside), outsideBefore, 'nothing written outside');

    // .claude a real folder, .claude/memory the link.
    rmLink(claude);
    mkdirSync(claude);
    symlinkSync(w.outside, path.join(claude, 'memory'));
    const r = await cli(['save', 'x', '--left-off', 'x']);
    assert.equal(r.code, 1);
    assert.ok(r.err.includes(path.join(claude, 'memory')), r.err);
    assert.deepEqual(snapshotTree(w.outside), outsideBefore, 'nothing written outside');

    // A link that stays inside the workspace is followed.
    rmLink(path.join(claude, 'memory'));
    mkdirSync(path.join(w.repo, 'notes'));
    symlinkSync(path.join('..', 'notes'), path.join(claude, 'memory'));
    const ok = await cli(['save', 'y', '--left-off', 'y']);
    assert.equal(ok.code, 0, ok.err);
    assert.ok(existsSync(path.join(w.repo, 'notes', 'checkpoint-y.md')));
  } finally {
    w.done();
  }
});

function rmLink(p: string): void {
  require('node:fs').unlinkSync(p);
}

test('a checkpoint file that is a symbolic link is never read through: show, resume and list refuse it (0.1.0: show printed the outside file)', async () => {
  const w = attackWorld();
  try {
    mkdirSync(w.mem);
    writeFileSync(path.join(w.outside, 'README.md'), '# Checkpoint: readme\n## Left Off\nTOP SECRET outside text\n');
    symlinkSync(path.join(w.outside, 'README.md'), path.join(w.mem, 'checkpoint-readme.md'));
    for (const args of [['show', 'readme'], ['show', 'readme', '--json'], ['resume', 'readme'], ['resume', 'readme', '--keep']]) {
      const r = await w.cli(args);
      assert.equal(r.code, 1, `${args.join(' ')}: ${r.out}`);
      assert.match(r.err, /symbolic link/);
      assert.doesNotMatch(r.out + r.err, /TOP SECRET/);
    }
    const list = await w.cli(['list', '--json']);
    const entry = JSON.parse(list.out).checkpoints.find((e: { name: string }) => e.name === 'readme');
    assert.match(entry.unreadable, /symbolic link/);
    assert.doesNotMatch(list.out, /TOP SECRET/);
    assert.deepEqual(readdirSync(w.mem).sort(), ['checkpoint-readme.md'], 'nothing consumed');
  } finally {
    w.done();
  }
});
