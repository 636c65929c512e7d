import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import type { CheckpointApi } from '../../src/extension';
import {
  NEEDS_TRUST, SUITE_TIMEOUT, activateExtension, atomicWrite, checkpointText, currentBranch, ensureCommit, firstFolder, git, labels, runCli, save,
  skipSuite, tempDir, useMemoryDir, waitFor, watchersReady,
} from './helpers';

// The status bar's checkpoint is not only the one saved or resumed in this window: agents and their hooks save
// with the CLI, before the window opened or while it is open, and the newest checkpoint of the folder shows.
describe('Status bar: the newest checkpoint, also when saved by the CLI', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let cwd: string;
  let dir: string;
  let earlier: string;
  let original: string;
  const feature = `checkpoint-it/cli-feature-${process.pid}`;
  const hour = 3_600_000;

  const state = (): CheckpointApi['statusBar']['state'] => api.statusBar.state;
  const cliSave = (name: string, leftOff: string): string => runCli('save', name, '--left-off', leftOff, '--dir', dir, '--cwd', cwd);
  const shows = (name: string, what = `the status bar to show "${name}"`): Promise<void> =>
    waitFor(api.statusBar.onDidChangeState, () => state().visible && state().name === name, what);
  const inTree = (name: string): Promise<void> =>
    waitFor(api.tree.onDidChangeTreeData, async () => (await labels(api, folder)).includes(name), `"${name}" in the tree`);
  const closeEditors = (): Thenable<unknown> => vscode.commands.executeCommand('workbench.action.closeAllEditors');

  before(async function () {
    if (!vscode.workspace.isTrusted) skipSuite(this, NEEDS_TRUST);
    api = await activateExtension();
    folder = firstFolder();
    cwd = folder.uri.fsPath;
    ensureCommit(cwd);
    original = currentBranch(cwd);
    assert.equal(await api.model.currentBranch(folder), original); // starts the HEAD watcher
    await closeEditors();
    api.model.useFolder(folder); // the status bar shows this folder (multi-root too)
    await api.model.setActive(folder, undefined); // nothing saved or resumed in this window
    dir = tempDir('active');
    earlier = tempDir('active-earlier');
  });

  after(async () => {
    if (!api) return; // skipped
    await closeEditors();
    if (currentBranch(cwd) !== original) git(cwd, 'checkout', '-q', original);
    try {
      git(cwd, 'branch', '-q', '-D', feature);
    } catch {
      // never created
    }
    await api.model.setActive(folder, undefined);
    await api.model.setDismissed(folder, undefined);
    await useMemoryDir(api, folder, undefined);
    rmSync(dir, { recursive: true, force: true });
    rmSync(earlier, { recursive: true, force: true });
  });

  it('shows the newest checkpoint of a memory folder that was written before the window looked at it', async () => {
    const now = Date.now();
    atomicWrite(path.join(earlier, 'checkpoint-older.md'), checkpointText('older', 'Older work', new Date(now - 2 * hour), original));
    atomicWrite(path.join(earlier, 'checkpoint-newest-before.md'), checkpointText('newest-before', 'Newer work', new Date(now - hour), original));
    await useMemoryDir(api, folder, earlier);
    await shows('newest-before');
    assert.equal(api.model.active(folder), undefined, 'nothing was saved or resumed in this window');
    assert.equal(state().branchMismatch, false);
    assert.equal(api.contextKeys.get('checkpoint.hasActive'), true);

    await useMemoryDir(api, folder, dir);
    await waitFor(api.statusBar.onDidChangeState, () => !state().visible, 'the status bar to hide: the new memory folder is empty');
    await watchersReady(api, folder, dir);
  });

  it('shows a checkpoint the CLI saves while the window is open', async () => {
    cliSave('from-cli', 'Saved by an agent hook');
    await shows('from-cli');
    assert.equal(state().savedBranch, original);
    assert.equal(state().branchMismatch, false);
    assert.equal(api.model.active(folder), undefined);
  });

  it('warns when the CLI saved it on another branch', async () => {
    git(cwd, 'checkout', '-q', '-b', feature);
    cliSave('cli-on-feature', 'Feature work by the agent');
    git(cwd, 'checkout', '-q', original);
    await waitFor(
      api.statusBar.onDidChangeState,
      () => state().name === 'cli-on-feature' && state().branchMismatch && state().currentBranch === original,
      'the status bar to warn that "cli-on-feature" was saved on another branch',
    );
    assert.equal(state().savedBranch, feature);
    assert.equal(api.contextKeys.get('checkpoint.branchMismatch'), true);
  });

  it('keeps the one saved or resumed in this window until a newer one is saved', async () => {
    await save(folder, { name: 'saved-here', leftOff: 'From the editor' });
    await shows('saved-here');
    // Written now, but saved (by its own account) a day ago: not newer.
    atomicWrite(path.join(dir, 'checkpoint-backdated.md'), checkpointText('backdated', 'Old news', new Date(Date.now() - 24 * hour), original));
    await inTree('backdated');
    assert.equal(state().name, 'saved-here');
    // Resuming an older one (kept) makes it the active one, though others were saved after it.
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'cli-on-feature', folder: cwd, keep: true });
    assert.equal(r?.consumed, false);
    await waitFor(api.statusBar.onDidChangeState, () => state().name === 'cli-on-feature' && state().branchMismatch, 'the resumed checkpoint, with its warning');
    await closeEditors();
  });

  it('Dismiss hides it until a newer checkpoint is saved', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.statusBarActions', { action: 'dismiss' }), 'dismiss');
    await waitFor(api.statusBar.onDidChangeState, () => !state().visible, 'the status bar item to hide');
    assert.equal(api.contextKeys.get('checkpoint.hasActive'), false);
    assert.ok(api.model.dismissedUntil(folder), 'the Dismiss is kept in workspaceState');
    // A file written after the Dismiss but saved before it does not bring the item back.
    atomicWrite(path.join(dir, 'checkpoint-backdated-2.md'), checkpointText('backdated-2', 'Older still', new Date(Date.now() - hour), original));
    await inTree('backdated-2');
    assert.equal(state().visible, false);

    cliSave('after-dismiss', 'The agent saved again');
    await shows('after-dismiss', 'the newer checkpoint to bring the status bar item back');
    assert.equal(api.model.dismissedUntil(folder), undefined, 'the Dismiss is over');
  });

  it('shows the next newest once the shown one is resumed (consumed), and hides when none is left', async () => {
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'after-dismiss', folder: cwd });
    assert.equal(r?.consumed, true);
    assert.equal(api.model.active(folder)?.path, r.trashPath, 'the window remembers the resumed one');
    // The newest left by its saved time: saved-here (from-cli and cli-on-feature are older; the backdated ones too).
    await shows('saved-here', 'the next newest, "saved-here", to show');
    assert.equal(state().branchMismatch, false);

    await vscode.commands.executeCommand('checkpoint.delete', { name: 'saved-here', folder: cwd });
    await waitFor(api.statusBar.onDidChangeState, () => state().name === 'cli-on-feature' && state().branchMismatch, 'the next newest, with its warning');

    await vscode.commands.executeCommand('checkpoint.deleteAll', { folder: cwd, confirm: false });
    await waitFor(api.statusBar.onDidChangeState, () => !state().visible, 'the status bar to hide: no checkpoint left');
    await closeEditors();
  });
});
