import * as assert from 'node:assert/strict';
import { readFileSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/extension';
import {
  SUITE_TIMEOUT, activateExtension, atomicWrite, checkpointText, firstFolder, folderChildren, label, save, setSetting, skipSuite, tempDir, waitFor, watchersReady,
} from './helpers';

// Runs only when the window is in Restricted Mode (code-server runner: --trust); skipped otherwise.
describe('Restricted Mode', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let dir: string;
  let ignored: string;

  before(async function () {
    if (vscode.workspace.isTrusted) skipSuite(this, 'needs Restricted Mode: run-integration.mjs --trust');
    api = await activateExtension();
    folder = firstFolder();
    dir = tempDir('restricted');
    ignored = tempDir('restricted-ignored');
    // Workspace values of the directory settings are ignored in Restricted Mode (restrictedConfigurations):
    // a folder value must lose to the user's.
    await vscode.workspace.getConfiguration('checkpoint', folder.uri).update('memoryDirectory', ignored, vscode.ConfigurationTarget.WorkspaceFolder);
    await setSetting(folder, 'memoryDirectory', dir, vscode.ConfigurationTarget.Global);
    await waitFor(api.model.onDidChange, async () => (await api.model.memoryDir(folder)).dir === dir, `the memory directory ${dir}`);
  });

  after(async () => {
    if (!api) return;
    await vscode.workspace.getConfiguration('checkpoint', folder.uri).update('memoryDirectory', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
    await setSetting(folder, 'memoryDirectory', undefined, vscode.ConfigurationTarget.Global);
    rmSync(dir, { recursive: true, force: true });
    rmSync(ignored, { recursive: true, force: true });
  });

  it('saves without running git: no branch, no modified files', async () => {
    const saved = await save(folder, { name: 'untrusted', leftOff: 'Reading code only' });
    assert.equal(saved, path.join(dir, 'checkpoint-untrusted.md'));
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^branch: ""$/m);
    assert.match(text, /^## Modified Files\nNone$/m);
  });

  it('shows the branch as unknown and explains why', async () => {
    assert.equal(await api.model.currentBranch(folder), '');
    const s = api.statusBar.state;
    assert.equal(s.visible, true);
    assert.equal(s.restricted, true);
    assert.equal(s.branchMismatch, false);
    const node = (await folderChildren(api, folder)).find((n) => label(api, n) === 'untrusted');
    assert.ok(node);
    const tooltip = api.tree.getTreeItem(node).tooltip;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    assert.match(tooltip.value, /outside a git repository|Restricted Mode/);
  });

  it('shows a checkpoint another process wrote while the window is open, without comparing branches', async () => {
    await watchersReady(api, folder, dir);
    atomicWrite(path.join(dir, 'checkpoint-from-agent.md'), checkpointText('from-agent', 'Agent stopped here', new Date(), 'feature/elsewhere'));
    await waitFor(api.statusBar.onDidChangeState, () => api.statusBar.state.name === 'from-agent', 'the status bar to show the checkpoint written on disk');
    const s = api.statusBar.state;
    assert.equal(s.restricted, true);
    assert.equal(s.savedBranch, 'feature/elsewhere');
    assert.equal(s.currentBranch, '');
    assert.equal(s.branchMismatch, false);
  });

  it('refuses to switch branches', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: folder.uri.fsPath, branch: 'main' }), undefined);
  });
});
