// Exit 1 means nothing written. On 0.1.0 (commit 7104910): resume/delete/delete --all with a non-UTF-8 or FIFO
// MEMORY.md moved the checkpoints to the trash and then exited 1, leaving the bullets; on a full disk and with a
// MEMORY.md owned by another user in a sticky folder, save exited 1 but left checkpoint-x.md without a bullet (a
// retry then said "already exists"), and resume/delete moved the file and then failed. Now MEMORY.md is read and
// checked before anything moves, and when the second write fails the first is undone.
import { test, type TestContext } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { chmodSync, chownSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, statfsSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { attackWorld, canDropPrivileges, NOBODY, type AttackWorld } from '../support/attackWorld';
import { snapshotTree } from '../support/fixtures';

const checkpointText = (name: string, leftOff = `left off in ${name}`): string =>
  `---\nname: ${name}\ndescription: ${leftOff}\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: ${name}\n## Left Off\n${leftOff}\n## Done This Session\nNone\n## Failed Approaches\nNone\n## Modified Files\nNone\n`;

/** Runs every write command that must fail and asserts that each left the memory directory exactly as it was. */
async function assertEachFailsWritingNothing(w: AttackWorld, mem: string, runs: string[][], message: RegExp, asUser?: number): Promise<void> {
  for (const args of runs) {
    const before = snapshotTree(mem);
    const r = await w.cli(args, { mem, asUser });
    assert.equal(r.code, 1, `${args.join(' ')} should fail: ${r.out}`);
    assert.match(r.err, message, args.join(' '));
    assert.deepEqual(snapshotTree(mem), before, `${args.join(' ')} changed nothing`);
  }
}

test('a non-UTF-8 or FIFO MEMORY.md: resume, delete and delete --all exit 1 and move nothing', async () => {
  const w = attackWorld();
  try {
    for (const kind of ['latin1', 'fifo']) {
      const mem = path.join(w.root, `mem-${kind}`);
      mkdirSync(mem);
      writeFileSync(path.join(mem, 'checkpoint-a.md'), checkpointText('a'));
      writeFileSync(path.join(mem, 'checkpoint-b.md'), checkpointText('b'));
      if (kind === 'fifo') execFileSync('mkfifo', [path.join(mem, 'MEMORY.md')]);
      else writeFileSync(path.join(mem, 'MEMORY.md'), Buffer.from('# Caf\xe9 notes\n\n## Checkpoints\n- **a** (main, Nov 20) — left off in a\n', 'latin1'));
      const message = kind === 'fifo' ? /is not a regular file/ : /is not valid UTF-8/;
      await assertEachFailsWritingNothing(w, mem, [['resume', 'a'], ['delete', 'a'], ['delete', '--all'], ['save', 'c', '--left-off', 'c']], message);
      assert.equal(existsSync(path.join(mem, '.trash')), false);
    }
  } finally {
    w.done();
  }
});

/** Mounts a tmpfs of `kb` KB at `dir` (root only); false when this machine does not allow it. */
function mountTmpfs(dir: string, kb: number): boolean {
  if (process.getuid?.() !== 0) return false;
  mkdirSync(dir, { recursive: true });
  return spawnSync('mount', ['-t', 'tmpfs', '-o', `size=${kb}k`, 'tmpfs', dir], { stdio: 'ignore' }).status === 0;
}

/**
 * Runs `fn` on a memory folder on a 64 KB tmpfs holding the checkpoints `names` (the first with a bullet) and a
 * MEMORY.md big enough that its rewrite cannot fit, filled but for two pages: room for a checkpoint file, none for a
 * new MEMORY.md. Skips where a tmpfs cannot be mounted. `trash`: a `.trash` folder exists already.
 */
async function onFullDisk(t: TestContext, names: string[], opts: { trash: boolean }, fn: (w: AttackWorld, mem: string) => Promise<void>): Promise<void> {
  const w = attackWorld();
  const mem = path.join(w.root, 'full');
  if (!mountTmpfs(mem, 64)) {
    t.skip('needs root and tmpfs to fill a disk');
    w.done();
    return;
  }
  try {
    const notes = Array.from({ length: 200 }, (_, i) => `note ${i} ${'n'.repeat(80)}`).join('\n');
    writeFileSync(path.join(mem, 'MEMORY.md'), `# Memory\n\n## Checkpoints\n- **${names[0]}** (main, Nov 20) — left off in ${names[0]}\n\nResume any: \`continue\` or \`continue {name}\`\n\n${notes}\n`);
    for (const n of names) writeFileSync(path.join(mem, `checkpoint-${n}.md`), checkpointText(n));
    if (opts.trash) mkdirSync(path.join(mem, '.trash'));
    const { bavail, bsize } = statfsSync(mem);
    writeFileSync(path.join(mem, 'filler'), Buffer.alloc((bavail - 2) * bsize));
    await fn(w, mem);
  } finally {
    spawnSync('umount', [mem]);
    w.done();
  }
}

test('a full disk (a 64 KB tmpfs): save, save --force, resume and delete exit 1 and leave every file as it was; a retry then works', { timeout: 120_000 }, async (t) => {
  await onFullDisk(t, ['y'], { trash: true }, async (w, mem) => {
    await assertEachFailsWritingNothing(
      w,
      mem,
      [['save', 'x', '--left-off', 'x'], ['save', 'y', '--force', '--left-off', 'replaced'], ['resume', 'y'], ['delete', 'y']],
      /ENOSPC|disk is full|no space/i,
    );
    assert.equal(readFileSync(path.join(mem, 'checkpoint-y.md'), 'utf8'), checkpointText('y'));
    rmSync(path.join(mem, 'filler'));
    const retry = await w.cli(['save', 'x', '--left-off', 'x'], { mem });
    assert.equal(retry.code, 0, `the retry is not told "already exists": ${retry.err}`);
  });
});

test('a full disk (a 64 KB tmpfs): combine over an existing name, with and without --trash-sources, exits 1 and leaves every file and folder as it was (no trash folder left behind)', { timeout: 120_000 }, async (t) => {
  await onFullDisk(t, ['a', 'b', 'merged'], { trash: false }, async (w, mem) => {
    await assertEachFailsWritingNothing(
      w,
      mem,
      [['combine', 'merged', 'a', 'b'], ['combine', 'merged', 'a', 'b', '--trash-sources'], ['combine', 'new', 'a', 'b', '--trash-sources']],
      /ENOSPC|disk is full|no space/i,
    );
    assert.equal(existsSync(path.join(mem, '.trash')), false);
    assert.equal(readFileSync(path.join(mem, 'checkpoint-merged.md'), 'utf8'), checkpointText('merged'));
  });
});

test('MEMORY.md owned by another user in a sticky folder: save, resume and delete exit 1 and change nothing', { timeout: 120_000, skip: process.getuid?.() === 0 && canDropPrivileges() ? false : 'needs root (to own MEMORY.md) and setpriv (to run the CLI as another user)' }, async () => {
  const w = attackWorld();
  try {
    const mem = path.join(w.root, 'shared');
    mkdirSync(mem);
    chmodSync(mem, 0o1777);
    writeFileSync(path.join(mem, 'MEMORY.md'), '# Shared\n\n## Checkpoints\n- **y** (main, Nov 20) — left off in y\n\nResume any: `continue` or `continue {name}`\n');
    chmodSync(path.join(mem, 'MEMORY.md'), 0o644);
    writeFileSync(path.join(mem, 'checkpoint-y.md'), checkpointText('y'));
    // root owns MEMORY.md; the CLI runs as nobody, who owns the checkpoint (so it could move it).
    chownSync(path.join(mem, 'checkpoint-y.md'), NOBODY, NOBODY);
    await assertEachFailsWritingNothing(w, mem, [['save', 'x', '--left-off', 'x'], ['resume', 'y'], ['delete', 'y'], ['delete', '--all']], /belongs to another user/, NOBODY);
    assert.deepEqual(readdirSync(mem).sort(), ['MEMORY.md', 'checkpoint-y.md']);
  } finally {
    w.done();
  }
});
