import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { atomicWrite, checkpointText } from '../support/fixtures';
import { folderChildren, label, save, setSetting, suite, waitFor, watchersReady } from './helpers';

/** The memory directory, set in the user's settings (a folder's value is ignored in Restricted Mode). */
let dir: string;

// Runs only when the window is in Restricted Mode (code-server runner: --trust); skipped otherwise.
suite('Restricted Mode', {
  needs: 'restricted',
  memoryDir: false,
}, (t) => {
  it('saves without running git: no branch, no modified files', async () => {
    const saved = await save(t.folder, { name: 'untrusted', leftOff: 'Reading code only' });
    assert.equal(saved, path.join(dir, 'checkpoint-untrusted.md'));
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^branch: ""$/m);
    assert.match(text, /^## Modified Files\nNone$/m);
    assert.doesNotMatch(text, /^(head|snapshot):/m, 'no code snapshot: git does not run');
  });

  it('shows the branch as unknown and explains why', async () => {
    assert.equal(await t.api.model.folder(t.folder).currentBranch(), '');
    const s = t.api.statusBar.state;
    assert.equal(s.visible, true);
    assert.equal(s.restricted, true);
    assert.equal(s.branchMismatch, false);
    const node = (await folderChildren(t.api, t.folder)).find((n) => label(t.api, n) === 'untrusted');
    assert.ok(node);
    const tooltip = t.api.tree.getTreeItem(node).tooltip;
    assert.ok(tooltip instanceof vscode.MarkdownString);
    assert.match(tooltip.value, /outside a git repository|Restricted Mode/);
  });

  it('shows a checkpoint another process wrote while the window is open, without comparing branches', async () => {
    await watchersReady(t.api, t.folder, dir);
    atomicWrite(path.join(dir, 'checkpoint-from-agent.md'), checkpointText('from-agent', 'Agent stopped here', { saved: new Date(), branch: 'feature/elsewhere' }));
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.name === 'from-agent', 'the status bar to show the checkpoint written on disk');
    const s = t.api.statusBar.state;
    assert.equal(s.restricted, true);
    assert.equal(s.savedBranch, 'feature/elsewhere');
    assert.equal(s.currentBranch, '');
    assert.equal(s.branchMismatch, false);
  });

  it('refuses the code snapshot commands (they run git)', async () => {
    for (const id of ['checkpoint.compareWithNow', 'checkpoint.restoreToBranch', 'checkpoint.push', 'checkpoint.pull']) {
      assert.equal(await vscode.commands.executeCommand(id, { folder: t.folder.uri.fsPath, name: 'untrusted' }), undefined, id);
    }
  });

  it('refuses to switch branches', async () => {
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: t.folder.uri.fsPath, branch: 'main' }), undefined);
  });

  return {
    async setup() {
      // Workspace values of the directory settings are ignored in Restricted Mode (restrictedConfigurations):
      // a folder value must lose to the user's.
      dir = t.temp('restricted');
      await vscode.workspace.getConfiguration('checkpoint', t.folder.uri).update('memoryDirectory', t.temp('restricted-ignored'), vscode.ConfigurationTarget.WorkspaceFolder);
      await setSetting(t.folder, 'memoryDirectory', dir, vscode.ConfigurationTarget.Global);
      await waitFor(t.api.model.onDidChange, async () => (await t.api.model.folder(t.folder).memoryDir()).dir === dir, `the memory directory ${dir}`);
    },
    async teardown() {
      await vscode.workspace.getConfiguration('checkpoint', t.folder.uri).update('memoryDirectory', undefined, vscode.ConfigurationTarget.WorkspaceFolder);
      await setSetting(t.folder, 'memoryDirectory', undefined, vscode.ConfigurationTarget.Global);
    },
  };
});
