import * as assert from 'node:assert/strict';
import { mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CompareResult } from '../../src/editor/commandIds';
import { currentBranch, git } from '../support/fixtures';
import { save, setSetting, suite, waitFor } from './helpers';

const sub = `snapshot-it-${process.pid}`;
const name = `snap-it-${process.pid}`;
const rel = (f: string): string => `${sub}/${f}`;

suite('Code snapshots: Compare with Now, Compare with Saved HEAD, Restore to a New Branch', {}, (t) => {
  it('Compare with Now opens the multi-file diff of the snapshot against the work tree, with the right files', async () => {
    mkdirSync(path.join(t.cwd, sub), { recursive: true });
    writeFileSync(path.join(t.cwd, sub, 'edited.txt'), 'as saved\n');
    writeFileSync(path.join(t.cwd, sub, 'removed.txt'), 'removed later\n');
    writeFileSync(path.join(t.cwd, sub, 'same.txt'), 'unchanged\n');
    await save(t.folder, { name, leftOff: 'Snapshot under test' });
    // Work goes on after the checkpoint.
    writeFileSync(path.join(t.cwd, sub, 'edited.txt'), 'edited since\n');
    rmSync(path.join(t.cwd, sub, 'removed.txt'));
    writeFileSync(path.join(t.cwd, sub, 'added.txt'), 'added since\n');

    const r = await vscode.commands.executeCommand<CompareResult>('checkpoint.compareWithNow', { folder: t.cwd, name });
    assert.ok(r, 'Compare with Now gave no result (see the Checkpoint log)');
    assert.equal(r.title, `Checkpoint "${name}" ↔ Now`);
    assert.deepEqual(
      r.files.filter((f) => f.path.startsWith(`${sub}/`)).map((f) => [f.status, f.path]),
      [
        ['A', rel('added.txt')],
        ['M', rel('edited.txt')],
        ['D', rel('removed.txt')],
      ],
    );
    // The multi-file diff editor is open, titled as the command said, with as many files (VS Code adds the count).
    const tabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    const label = `${r.title} (${r.files.length} files)`;
    await waitFor(vscode.window.tabGroups.onDidChangeTabs, () => tabs().some((tab) => tab.label === label), 'the multi-file diff editor').catch((err: Error) => {
      throw new Error(`${err.message}; open tabs: ${JSON.stringify(tabs().map((tab) => [tab.label, tab.input?.constructor?.name]))}`);
    });
    // The left side is the snapshot, read-only, through the content provider; the right side is the file itself.
    const edited = r.files.find((f) => f.path === rel('edited.txt'))!;
    const left = await vscode.workspace.openTextDocument(vscode.Uri.parse(edited.original!));
    assert.equal(left.getText(), 'as saved\n');
    assert.equal(vscode.Uri.parse(edited.modified!).fsPath, path.join(t.cwd, sub, 'edited.txt'));
    const removed = r.files.find((f) => f.path === rel('removed.txt'))!;
    assert.equal((await vscode.workspace.openTextDocument(vscode.Uri.parse(removed.original!))).getText(), 'removed later\n');
    assert.equal(removed.modified, undefined);
    assert.equal(r.files.find((f) => f.path === rel('added.txt'))!.original, undefined);
  });

  it('Compare with Now leaves out a file grown past the size cap, and says so (the diff alone shows it deleted)', async () => {
    writeFileSync(path.join(t.cwd, sub, 'grown.bin'), 'small when saved\n');
    await save(t.folder, { name: `${name}-cap`, leftOff: 'Before the file grew', force: true });
    writeFileSync(path.join(t.cwd, sub, 'grown.bin'), Buffer.alloc(10 * 1024 * 1024 + 1, 7));
    try {
      const r = await vscode.commands.executeCommand<CompareResult>('checkpoint.compareWithNow', { folder: t.cwd, name: `${name}-cap` });
      assert.ok(r, 'Compare with Now gave no result (see the Checkpoint log)');
      assert.deepEqual(r.skipped, [rel('grown.bin')]);
      assert.deepEqual(r.files.find((f) => f.path === rel('grown.bin'))?.status, 'D', 'the work tree\'s side lacks it');
    } finally {
      rmSync(path.join(t.cwd, sub, 'grown.bin'));
    }
  });

  it('Compare with Saved HEAD shows what the snapshot held beyond its commit', async () => {
    const r = await vscode.commands.executeCommand<CompareResult>('checkpoint.compareWithSavedHead', { folder: t.cwd, name });
    assert.ok(r);
    assert.deepEqual(
      r.files.filter((f) => f.path.startsWith(`${sub}/`)).map((f) => [f.status, f.path]),
      [
        ['A', rel('edited.txt')],
        ['A', rel('removed.txt')],
        ['A', rel('same.txt')],
      ],
    );
  });

  it('Restore to a New Branch creates checkpoint/<name> at the snapshot and leaves the work tree and HEAD alone', async () => {
    const head = git(t.cwd, 'rev-parse', 'HEAD');
    const branch = currentBranch(t.cwd);
    const created = await vscode.commands.executeCommand<string>('checkpoint.restoreToBranch', { folder: t.cwd, name, checkout: false });
    assert.equal(created, `checkpoint/${name}`);
    assert.equal(git(t.cwd, 'show', `${created}:${rel('edited.txt')}`), 'as saved');
    assert.equal(git(t.cwd, 'rev-parse', 'HEAD'), head);
    assert.equal(currentBranch(t.cwd), branch);
    assert.equal(git(t.cwd, 'rev-parse', `${created}^`), head);
    // Never moves an existing branch: a second time is an error, and nothing changes.
    assert.equal(await vscode.commands.executeCommand('checkpoint.restoreToBranch', { folder: t.cwd, name, checkout: false }), undefined);
  });

  it('with checkpoint.snapshot off, a save records no snapshot', async () => {
    await setSetting(t.folder, 'snapshot', 'off');
    try {
      await save(t.folder, { name: `${name}-off`, leftOff: 'No snapshot' });
      const store = await t.api.model.folder(t.folder).store();
      assert.equal((await store.show(`${name}-off`)).snapshot, undefined);
      assert.match((await store.show(name)).snapshot ?? '', /^[0-9a-f]{40}$/);
    } finally {
      await setSetting(t.folder, 'snapshot', undefined);
    }
  });

  it('over checkpoint.snapshotSizeLimitMB of new content, a save records no snapshot', async () => {
    await setSetting(t.folder, 'snapshotSizeLimitMB', 0);
    try {
      writeFileSync(path.join(t.cwd, sub, 'big.txt'), 'x'.repeat(4096));
      await save(t.folder, { name: `${name}-big`, leftOff: 'Too large' });
      const store = await t.api.model.folder(t.folder).store();
      assert.equal((await store.show(`${name}-big`)).snapshot, undefined);
    } finally {
      await setSetting(t.folder, 'snapshotSizeLimitMB', undefined);
    }
  });

  return {
    async teardown() {
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
      rmSync(path.join(t.cwd, sub), { recursive: true, force: true });
      const refs = git(t.cwd, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints', `refs/heads/checkpoint/${name}`).split('\n').filter(Boolean);
      for (const ref of refs) git(t.cwd, 'update-ref', '-d', ref);
    },
  };
});
