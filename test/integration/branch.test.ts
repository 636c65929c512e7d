import * as assert from 'node:assert/strict';
import { rmSync } from 'node:fs';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import type { CheckpointApi } from '../../src/extension';
import {
  NEEDS_TRUST, SUITE_TIMEOUT, activateExtension, currentBranch, ensureCommit, firstFolder, folderChildren, git, label, save, skipSuite, tempDir, useMemoryDir, waitFor, watchersReady,
} from './helpers';

describe('Branch awareness: status bar and tree', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let cwd: string;
  let dir: string;
  let original: string;
  const feature = `checkpoint-it/feature-${process.pid}`;

  before(async function () {
    if (!vscode.workspace.isTrusted) skipSuite(this, NEEDS_TRUST);
    api = await activateExtension();
    folder = firstFolder();
    cwd = folder.uri.fsPath;
    ensureCommit(cwd);
    original = currentBranch(cwd);
    // Reading the branch once starts the watcher on git's HEAD; the probe then waits until watchers deliver events.
    assert.equal(await api.model.currentBranch(folder), original);
    dir = tempDir('branch');
    await useMemoryDir(api, folder, dir);
    await watchersReady(api, folder, dir);
  });

  after(async () => {
    if (!api) return; // skipped
    if (currentBranch(cwd) !== original) git(cwd, 'checkout', '-q', original);
    try {
      git(cwd, 'branch', '-q', '-D', feature);
    } catch {
      // never created
    }
    await useMemoryDir(api, folder, undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('follows a checkout made outside the editor (watching HEAD)', async () => {
    git(cwd, 'checkout', '-q', '-b', feature);
    await waitFor(api.model.onDidChange, () => api.model.branch(folder) === feature, `the model to see branch ${feature}`);
  });

  it('shows the active checkpoint normally on its own branch', async () => {
    await save(folder, { name: 'on-feature', leftOff: 'Feature work' });
    const s = api.statusBar.state;
    assert.equal(s.visible, true);
    assert.equal(s.name, 'on-feature');
    assert.equal(s.savedBranch, feature);
    assert.equal(s.branchMismatch, false);
  });

  it('warns in the status bar and the tree when the branch differs', async () => {
    git(cwd, 'checkout', '-q', original);
    await waitFor(api.statusBar.onDidChangeState, () => api.statusBar.state.branchMismatch, 'the status bar to report the branch mismatch');
    assert.equal(api.statusBar.state.currentBranch, original);
    assert.equal(api.statusBar.state.savedBranch, feature);
    const node = (await folderChildren(api, folder)).find((n) => label(api, n) === 'on-feature');
    assert.ok(node);
    const item = api.tree.getTreeItem(node);
    assert.match(String(item.contextValue), /checkpoint:mismatch/);
    assert.ok(item.iconPath instanceof vscode.ThemeIcon);
    assert.equal(item.iconPath.id, 'warning');
    assert.equal(item.accessibilityInformation?.label, `on-feature, saved on branch ${feature}, just now, warning: you are on another branch (${original})`);
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'on-feature', folder: cwd, keep: true });
    assert.equal(r.branchMismatch, true);
    assert.equal(r.currentBranch, original);
  });

  it('refuses to switch to a branch git does not know, changing nothing', async () => {
    const switched = await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: cwd, branch: 'no-such-branch-for-checkpoint-tests' });
    assert.equal(switched, undefined);
    assert.equal(currentBranch(cwd), original);
  });

  it('switches back to the checkpoint branch', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: cwd }), true);
    assert.equal(currentBranch(cwd), feature);
    await waitFor(api.statusBar.onDidChangeState, () => !api.statusBar.state.branchMismatch, 'the mismatch to clear');
    assert.equal(api.statusBar.state.currentBranch, feature);
  });
});
