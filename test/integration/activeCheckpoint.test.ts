import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import type { StatusBarState } from '../../src/editor/statusBar';
import { atomicWrite, checkpointText, currentBranch, git, restoreBranch, runCliSync } from '../support/fixtures';
import { labels, save, suite, useMemoryDir, waitFor, watchersReady } from './helpers';

// The status bar's checkpoint is not only the one saved or resumed in this window: agents and their hooks save
// with the CLI, before the window opened or while it is open, and the newest checkpoint of the folder shows.
suite('Status bar: the newest checkpoint, also when saved by the CLI', {}, (t) => {
  let earlier: string;
  let original: string;
  const feature = `checkpoint-it/cli-feature-${process.pid}`;
  const hour = 3_600_000;

  const state = (): StatusBarState => t.api.statusBar.state;
  const cliSave = (name: string, leftOff: string): void => {
    const r = runCliSync(['save', name, '--left-off', leftOff, '--dir', t.dir, '--cwd', t.cwd], { env: process.env });
    assert.equal(r.code, 0, r.err);
  };
  const shows = (name: string, what = `the status bar to show "${name}"`): Promise<void> =>
    waitFor(t.api.statusBar.onDidChangeState, () => state().visible && state().name === name, what);
  const inTree = (name: string): Promise<void> =>
    waitFor(t.api.tree.onDidChangeTreeData, async () => (await labels(t.api, t.folder)).includes(name), `"${name}" in the tree`);
  const closeEditors = (): Thenable<unknown> => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  it('shows the newest checkpoint of a memory folder that was written before the window looked at it', async () => {
    const now = Date.now();
    atomicWrite(path.join(earlier, 'checkpoint-older.md'), checkpointText('older', 'Older work', { saved: new Date(now - 2 * hour), branch: original }));
    atomicWrite(path.join(earlier, 'checkpoint-newest-before.md'), checkpointText('newest-before', 'Newer work', { saved: new Date(now - hour), branch: original }));
    await useMemoryDir(t.api, t.folder, earlier);
    await shows('newest-before');
    assert.equal(t.api.model.folder(t.folder).recorded(), undefined, 'nothing was saved or resumed in this window');
    assert.equal(state().branchMismatch, false);
    assert.equal(t.api.contextKeys.get('checkpoint.hasActive'), true);

    await useMemoryDir(t.api, t.folder, t.dir);
    await waitFor(t.api.statusBar.onDidChangeState, () => !state().visible, 'the status bar to hide: the new memory folder is empty');
    await watchersReady(t.api, t.folder, t.dir);
  });

  it('shows a checkpoint the CLI saves while the window is open', async () => {
    cliSave('from-cli', 'Saved by an agent hook');
    await shows('from-cli');
    assert.equal(state().savedBranch, original);
    assert.equal(state().branchMismatch, false);
    assert.equal(t.api.model.folder(t.folder).recorded(), undefined);
  });

  it('warns when the CLI saved it on another branch', async () => {
    git(t.cwd, 'checkout', '-q', '-b', feature);
    cliSave('cli-on-feature', 'Feature work by the agent');
    git(t.cwd, 'checkout', '-q', original);
    await waitFor(
      t.api.statusBar.onDidChangeState,
      () => state().name === 'cli-on-feature' && state().branchMismatch && state().currentBranch === original,
      'the status bar to warn that "cli-on-feature" was saved on another branch',
    );
    assert.equal(state().savedBranch, feature);
    assert.equal(t.api.contextKeys.get('checkpoint.branchMismatch'), true);
  });

  it('keeps the one saved or resumed in this window until a newer one is saved', async () => {
    await save(t.folder, { name: 'saved-here', leftOff: 'From the editor' });
    await shows('saved-here');
    // Written now, but saved (by its own account) a day ago: not newer.
    atomicWrite(path.join(t.dir, 'checkpoint-backdated.md'), checkpointText('backdated', 'Old news', { saved: new Date(Date.now() - 24 * hour), branch: original }));
    await inTree('backdated');
    assert.equal(state().name, 'saved-here');
    // Resuming an older one (kept) makes it the active one, though others were saved after it.
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'cli-on-feature', folder: t.cwd, keep: true, onOtherBranch: 'here' });
    assert.equal(r?.consumed, false);
    await waitFor(t.api.statusBar.onDidChangeState, () => state().name === 'cli-on-feature' && state().branchMismatch, 'the resumed checkpoint, with its warning');
    await closeEditors();
  });

  it('Dismiss hides it until a newer checkpoint is saved', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.statusBarActions', { action: 'dismiss' }), 'dismiss');
    await waitFor(t.api.statusBar.onDidChangeState, () => !state().visible, 'the status bar item to hide');
    assert.equal(t.api.contextKeys.get('checkpoint.hasActive'), false);
    assert.ok(t.api.model.folder(t.folder).dismissedUntil(), 'the Dismiss is kept in workspaceState');
    // A file written after the Dismiss but saved before it does not bring the item back.
    atomicWrite(path.join(t.dir, 'checkpoint-backdated-2.md'), checkpointText('backdated-2', 'Older still', { saved: new Date(Date.now() - hour), branch: original }));
    await inTree('backdated-2');
    assert.equal(state().visible, false);

    cliSave('after-dismiss', 'The agent saved again');
    await shows('after-dismiss', 'the newer checkpoint to bring the status bar item back');
    assert.equal(t.api.model.folder(t.folder).dismissedUntil(), undefined, 'the Dismiss is over');
  });

  it('shows the next newest once the shown one is resumed (consumed), and hides when none is left', async () => {
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'after-dismiss', folder: t.cwd });
    assert.equal(r?.consumed, true);
    assert.equal(t.api.model.folder(t.folder).recorded()?.path, r.trashPath, 'the window remembers the resumed one');
    // The newest left by its saved time: saved-here (from-cli and cli-on-feature are older; the backdated ones too).
    await shows('saved-here', 'the next newest, "saved-here", to show');
    assert.equal(state().branchMismatch, false);

    await vscode.commands.executeCommand('checkpoint.delete', { name: 'saved-here', folder: t.cwd });
    await waitFor(t.api.statusBar.onDidChangeState, () => state().name === 'cli-on-feature' && state().branchMismatch, 'the next newest, with its warning');

    await vscode.commands.executeCommand('checkpoint.deleteAll', { folder: t.cwd, confirm: false });
    await waitFor(t.api.statusBar.onDidChangeState, () => !state().visible, 'the status bar to hide: no checkpoint left');
    await closeEditors();
  });

  return {
    async setup() {
      original = currentBranch(t.cwd);
      assert.equal(await t.api.model.folder(t.folder).currentBranch(), original); // starts the HEAD watcher
      await closeEditors();
      t.api.model.useFolder(t.folder); // the status bar shows this folder (multi-root too)
      await t.api.model.folder(t.folder).setRecorded(undefined); // nothing saved or resumed in this window
      earlier = t.temp('active-earlier');
    },
    async teardown() {
      await closeEditors();
      restoreBranch(t.cwd, original, feature);
      await t.api.model.folder(t.folder).setRecorded(undefined);
      await t.api.model.folder(t.folder).setDismissed(undefined);
    },
  };
});
