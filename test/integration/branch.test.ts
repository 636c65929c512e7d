import * as assert from 'node:assert/strict';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import { currentBranch, git, restoreBranch } from '../support/fixtures';
import { folderChildren, label, save, suite, waitFor } from './helpers';

const feature = `checkpoint-it/feature-${process.pid}`;
let original: string;

suite('Branch awareness: status bar and tree', {
  watchers: true,
}, (t) => {
  it('follows a checkout made outside the editor (watching HEAD)', async () => {
    git(t.cwd, 'checkout', '-q', '-b', feature);
    await waitFor(t.api.model.onDidChange, () => t.api.model.folder(t.folder).branch() === feature, `the model to see branch ${feature}`);
  });

  it('shows the active checkpoint normally on its own branch', async () => {
    await save(t.folder, { name: 'on-feature', leftOff: 'Feature work' });
    const s = t.api.statusBar.state;
    assert.equal(s.visible, true);
    assert.equal(s.name, 'on-feature');
    assert.equal(s.savedBranch, feature);
    assert.equal(s.branchMismatch, false);
  });

  it('warns in the status bar and the tree when the branch differs', async () => {
    git(t.cwd, 'checkout', '-q', original);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.branchMismatch, 'the status bar to report the branch mismatch');
    assert.equal(t.api.statusBar.state.currentBranch, original);
    assert.equal(t.api.statusBar.state.savedBranch, feature);
    const node = (await folderChildren(t.api, t.folder)).find((n) => label(t.api, n) === 'on-feature');
    assert.ok(node);
    const item = t.api.tree.getTreeItem(node);
    assert.match(String(item.contextValue), /checkpoint:mismatch/);
    assert.ok(item.iconPath instanceof vscode.ThemeIcon);
    assert.equal(item.iconPath.id, 'warning');
    assert.equal(item.accessibilityInformation?.label, `on-feature, saved on branch ${feature}, just now, warning: you are on another branch (${original})`);
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'on-feature', folder: t.cwd, keep: true, onOtherBranch: 'here' });
    assert.equal(r.branchMismatch, true);
    assert.equal(r.currentBranch, original);
  });

  it('refuses to switch to a branch git does not know, changing nothing', async () => {
    const switched = await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: t.cwd, branch: 'no-such-branch-for-checkpoint-tests' });
    assert.equal(switched, undefined);
    assert.equal(currentBranch(t.cwd), original);
  });

  it('switches back to the checkpoint branch', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: t.cwd }), true);
    assert.equal(currentBranch(t.cwd), feature);
    await waitFor(t.api.statusBar.onDidChangeState, () => !t.api.statusBar.state.branchMismatch, 'the mismatch to clear');
    assert.equal(t.api.statusBar.state.currentBranch, feature);
  });

  return {
    async setup() {
      original = currentBranch(t.cwd);
      assert.equal(await t.api.model.folder(t.folder).currentBranch(), original);
    },
    teardown() {
      restoreBranch(t.cwd, original, feature);
    },
  };
});
