import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import { currentBranch, git, readIndex, restoreBranch } from '../support/fixtures';
import { inWorkbench, save, suite, waitFor } from './helpers';

const feature = `checkpoint-it/elsewhere-${process.pid}`;
let original: string;

/** The open text documents that show checkpoint `name` (the file itself, or what the preview renders). */
function documentsOf(name: string): vscode.TextDocument[] {
  return vscode.workspace.textDocuments.filter((d) => d.getText().includes(`# Checkpoint: ${name}`));
}

/** The editor tabs (text, diff, custom or notebook) whose file is under the memory folder's trash. */
function trashTabs(dir: string): string[] {
  const trash = path.join(dir, '.trash') + path.sep;
  const uris = vscode.window.tabGroups.all.flatMap((g) => g.tabs).flatMap((tab) => {
    const input = tab.input;
    if (input instanceof vscode.TabInputText || input instanceof vscode.TabInputCustom || input instanceof vscode.TabInputNotebook) return [input.uri];
    if (input instanceof vscode.TabInputTextDiff) return [input.original, input.modified];
    return [];
  });
  return uris.filter((u) => u.scheme === 'file' && u.fsPath.startsWith(trash)).map((u) => u.fsPath);
}

suite('Resume as a first-time user sees it', { workbench: true, timeout: 120_000 }, (t) => {
  const resume = (arg: Record<string, unknown>): Thenable<ResumeResult | undefined> =>
    vscode.commands.executeCommand<ResumeResult | undefined>('checkpoint.resume', { folder: t.folder.uri.fsPath, ...arg });
  const file = (name: string): string => path.join(t.dir, `checkpoint-${name}.md`);

  /** Saves `name` on the feature branch, then goes back to the original one (the model knows both at once). */
  async function saveOnFeature(name: string, extra: Record<string, unknown> = {}): Promise<void> {
    git(t.cwd, 'checkout', '-q', feature);
    await t.api.model.folder(t.folder).refreshBranch();
    await save(t.folder, { name, leftOff: `Work on ${name}`, ...extra });
    git(t.cwd, 'checkout', '-q', original);
    assert.equal(await t.api.model.folder(t.folder).refreshBranch(), original);
  }

  it('shows the resumed checkpoint as a person reads it: no front matter, and not the trash file', async () => {
    await save(t.folder, { name: 'view-me', leftOff: 'Where I was', failed: ['Tried X — broke Y'] });
    const r = await resume({ name: 'view-me' });
    assert.ok(r?.consumed && r.trashPath);
    await waitFor(vscode.workspace.onDidOpenTextDocument, () => documentsOf('view-me').length > 0, 'the resumed checkpoint to be shown');
    const shown = documentsOf('view-me');
    for (const doc of shown) {
      const text = doc.getText();
      assert.doesNotMatch(text, /^---/, `shown with its front matter (${doc.uri.toString()}):\n${text}`);
      assert.notEqual(doc.uri.fsPath, r.trashPath, 'shown from the trash, where the file is gone after Undo');
      assert.match(text, /^# Checkpoint: view-me$/m);
      assert.match(text, /^- \*\*Saved:\*\* \d{4}-\d\d-\d\d \d\d:\d\d$/m, 'the local time, not raw UTC');
      // What changed in the repository since it was saved, under its branch and time.
      assert.match(text, /^- \*\*Since saved:\*\* (fresh|moved on)\b/m, text);
      assert.match(text, /## Failed Approaches\n- Tried X — broke Y/);
      assert.doesNotMatch(text, /\b(?:snapshot|head):/);
    }
    const tabs = (): vscode.Tab[] => vscode.window.tabGroups.all.flatMap((g) => g.tabs);
    const preview = (): vscode.Tab | undefined => tabs().find((tab) => tab.label === 'Preview checkpoint-view-me.md');
    await waitFor(vscode.window.tabGroups.onDidChangeTabs, () => preview() !== undefined, 'the preview tab').catch(() => {
      assert.fail(`no preview tab of the checkpoint: ${JSON.stringify(tabs().map((tab) => tab.label))}`);
    });
    assert.ok(preview()?.input instanceof vscode.TabInputWebview, 'rendered, not the Markdown source');
    await inWorkbench({ action: 'notification', text: 'Resumed "view-me"' });
  });

  it('after Undo no tab is left on the trash file that is gone, and the view still shows the checkpoint', async () => {
    await vscode.commands.executeCommand('vscode.open', vscode.Uri.file(t.api.model.folder(t.folder).recorded()?.path ?? ''));
    assert.equal(trashTabs(t.dir).length, 1, 'the trashed file is open (the status bar\'s Open Checkpoint opens it)');
    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), file('view-me'));
    assert.deepEqual(trashTabs(t.dir), [], 'a tab on the trash path that Undo emptied');
    assert.ok(documentsOf('view-me').length > 0, 'the resumed view stays open');
  });

  it('asks first when the checkpoint was saved on another branch; Cancel consumes nothing', async () => {
    await saveOnFeature('elsewhere');
    const indexBefore = readIndex(t.dir);
    const fileBefore = readFileSync(file('elsewhere'), 'utf8');
    const resuming = resume({ name: 'elsewhere' });
    const dialog = await inWorkbench({ action: 'dialog', button: 'Cancel' });
    assert.match(dialog.text, new RegExp(`Saved on ${feature}; you are on ${original}`));
    assert.match(dialog.text, /Switch and Resume/);
    assert.match(dialog.text, /Resume Here/);
    assert.equal(await resuming, undefined);
    assert.equal(readFileSync(file('elsewhere'), 'utf8'), fileBefore, 'the checkpoint stays');
    assert.equal(readIndex(t.dir), indexBefore, 'MEMORY.md unchanged');
    assert.equal(currentBranch(t.cwd), original);
  });

  it('Resume Here: resumed on this branch, one notification with the branch and failed approaches, and Undo', async () => {
    const resuming = resume({ name: 'elsewhere' });
    await inWorkbench({ action: 'dialog', button: 'Resume Here' });
    const r = await resuming;
    assert.ok(r?.consumed);
    assert.equal(r.branchMismatch, true);
    assert.equal(currentBranch(t.cwd), original);
    const toast = await inWorkbench({ action: 'notification', text: 'Resumed "elsewhere"' });
    assert.match(toast.text, new RegExp(`^Resumed "elsewhere": Work on elsewhere\\. Moved to trash\\. Saved on ${feature}; you are on ${original}\\.`));
    assert.equal(toast.count, 1);
    assert.equal((await inWorkbench({ action: 'count', text: feature })).count, 1, 'one notification names the branch');
    assert.ok(toast.buttons?.includes('Undo'), `offered: ${toast.buttons?.join(', ')}`);
    await inWorkbench({ action: 'notification', text: 'Resumed "elsewhere"', button: 'Undo' });
    await waitFor(t.api.model.onDidChange, () => existsSync(file('elsewhere')), 'Undo to put the checkpoint back');
  });

  it('Switch and Resume: switches to the saved branch, then resumes; one notification says both', async () => {
    await saveOnFeature('switch-me', { failed: ['polling — too slow'] });
    const resuming = resume({ name: 'switch-me' });
    await inWorkbench({ action: 'dialog', button: 'Switch and Resume' });
    const r = await resuming;
    assert.ok(r?.consumed);
    assert.equal(currentBranch(t.cwd), feature);
    assert.equal(r.branchMismatch, false);
    const toast = await inWorkbench({ action: 'notification', text: 'Resumed "switch-me"' });
    assert.match(toast.text, new RegExp(`^Switched to ${feature}\\. Resumed "switch-me": Work on switch-me\\. Moved to trash\\. Previously failed: polling — too slow\\.`));
    assert.equal((await inWorkbench({ action: 'count', text: `Switched to ${feature}` })).count, 1, 'no separate "Switched" notification');
    assert.ok(toast.buttons?.includes('Undo'), `offered: ${toast.buttons?.join(', ')}`);
    assert.ok(!toast.buttons?.some((b) => b.startsWith('Switch to')), 'already on the branch');
  });

  return {
    setup() {
      original = currentBranch(t.cwd);
      git(t.cwd, 'branch', feature);
    },
    async teardown() {
      restoreBranch(t.cwd, original, feature);
      await t.api.model.folder(t.folder).refreshBranch();
      await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    },
  };
});
