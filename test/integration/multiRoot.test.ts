import * as assert from 'node:assert/strict';
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import type { CheckpointNode, FolderNode } from '../../src/editor/views/nodes';
import type { ModelChange } from '../../src/editor/folderHost';
import { currentBranch, git, readIndex, restoreBranch } from '../support/fixtures';
import { folderChildren, label, labels, save, suite, useMemoryDir, waitFor } from './helpers';

// Runs only in a multi-root workspace (code-server runner: --multi-root, which opens a .code-workspace file
// of two git repositories); in a single-folder window, and in Restricted Mode, every test is skipped.
suite('Multi-root workspace', { needs: 'multi-root', memoryDir: false }, (t) => {
  let first: vscode.WorkspaceFolder;
  let second: vscode.WorkspaceFolder;
  let dirA: string;
  let dirB: string;
  let dirC: string;
  const other = `checkpoint-it/multi-root-${process.pid}`;

  const closeEditors = async (): Promise<void> => {
    await vscode.commands.executeCommand('workbench.action.closeAllEditors');
    await waitFor(vscode.window.onDidChangeActiveTextEditor, () => vscode.window.activeTextEditor === undefined, 'no active editor');
  };
  const roots = async (): Promise<FolderNode[]> => {
    const nodes = await t.api.tree.getChildren();
    assert.ok(nodes.every((n) => n.kind === 'folder'), `only folder nodes at the root: ${nodes.map((n) => n.kind).join(', ')}`);
    return nodes as FolderNode[];
  };
  const folderNode = async (folder: vscode.WorkspaceFolder): Promise<FolderNode> => {
    const node = (await roots()).find((n) => n.folder.uri.toString() === folder.uri.toString());
    assert.ok(node, `a node for ${folder.name}`);
    return node;
  };
  const source = async (folder: vscode.WorkspaceFolder): Promise<string> => (await t.api.model.folder(folder).memoryDir()).source;

  it('is the runner\'s .code-workspace file with two folders; CHECKPOINT_TEST_WORKSPACE is the first', () => {
    assert.equal(vscode.workspace.workspaceFolders?.length, 2);
    const expectedFile = process.env.CHECKPOINT_TEST_WORKSPACE_FILE;
    if (expectedFile) assert.equal(vscode.workspace.workspaceFile?.fsPath, expectedFile);
    const expectedFirst = process.env.CHECKPOINT_TEST_WORKSPACE;
    if (expectedFirst) assert.equal(realpathSync(first.uri.fsPath), realpathSync(expectedFirst));
    assert.notEqual(first.name, second.name);
  });

  it('keeps each folder\'s checkpoint.memoryDirectory apart (WorkspaceFolder scope)', async () => {
    const inspect = (f: vscode.WorkspaceFolder) => vscode.workspace.getConfiguration('checkpoint', f.uri).inspect<string>('memoryDirectory');
    assert.equal(inspect(first)?.workspaceFolderValue, dirA);
    assert.equal(inspect(second)?.workspaceFolderValue, dirB);
    assert.equal(inspect(first)?.workspaceValue, undefined, 'nothing is written to the .code-workspace file');
    assert.equal((await t.api.model.folder(first).memoryDir()).dir, dirA);
    assert.equal((await t.api.model.folder(second).memoryDir()).dir, dirB);
    // Each value lives in its folder's .vscode/settings.json.
    const folderSettings = (f: vscode.WorkspaceFolder): Record<string, unknown> =>
      JSON.parse(readFileSync(path.join(f.uri.fsPath, '.vscode', 'settings.json'), 'utf8')) as Record<string, unknown>;
    assert.equal(folderSettings(first)['checkpoint.memoryDirectory'], dirA);
    assert.equal(folderSettings(second)['checkpoint.memoryDirectory'], dirB);

    // Changing the second folder's setting re-resolves the second folder only.
    const changed: ModelChange[] = [];
    const sub = t.api.model.onDidChange((e) => e.kind === 'memoryDir' && changed.push(e));
    try {
      await useMemoryDir(t.api, second, dirC);
    } finally {
      sub.dispose();
    }
    assert.ok(changed.length > 0);
    assert.ok(changed.every((e) => e.folder?.uri.toString() === second.uri.toString()), 'no memoryDir change for the first folder');
    assert.equal((await t.api.model.folder(first).memoryDir()).dir, dirA);
    await useMemoryDir(t.api, second, dirB);
  });

  it('tells the welcome view "mixed" when the folders store checkpoints in different kinds of places', async () => {
    assert.equal(t.api.contextKeys.get('checkpoint.memoryDirSource'), 'setting');
    await useMemoryDir(t.api, second, undefined);
    await waitFor(t.api.model.onDidChange, async () => (await source(second)) !== 'setting', 'the second folder to use its default memory directory');
    assert.equal(t.api.contextKeys.get('checkpoint.memoryDirSource'), 'mixed');
    await useMemoryDir(t.api, second, dirB);
    assert.equal(t.api.contextKeys.get('checkpoint.memoryDirSource'), 'setting');
  });

  it('saves with {folder: <second folder>} into the second folder\'s memory directory only', async () => {
    assert.deepEqual(await t.api.tree.getChildren(), [], 'no folder has a checkpoint yet: the welcome view shows');
    const saved = await save(second, { name: 'in-second', leftOff: 'B side' });
    assert.equal(saved, path.join(dirB, 'checkpoint-in-second.md'));
    assert.match(readIndex(dirB), /^- \*\*in-second\*\* .* — B side$/m);
    assert.equal(existsSync(path.join(dirA, 'checkpoint-in-second.md')), false);
    assert.equal(readIndex(dirA), '');
    assert.equal(t.api.statusBar.state.folder, second.name);
    assert.equal(t.api.statusBar.state.name, 'in-second');
  });

  it('shows one node per folder (label = folder name, stable id), the checkpoint under its folder', async () => {
    const nodes = await roots();
    assert.deepEqual(nodes.map((n) => label(t.api, n)), [first.name, second.name]);
    const ids = nodes.map((n) => t.api.tree.getTreeItem(n).id);
    assert.deepEqual(ids, [`folder:${first.uri.toString()}`, `folder:${second.uri.toString()}`]);
    assert.deepEqual(await labels(t.api, second), ['in-second']);
    const underFirst = await folderChildren(t.api, first);
    assert.deepEqual(underFirst.map((n) => n.kind), ['message'], 'the first folder says it has none');

    const item = (await folderChildren(t.api, second))[0];
    assert.equal(t.api.tree.getTreeItem(item).id, `${second.uri.toString()}#in-second`);
    assert.equal(t.api.tree.getParent(item), await folderNode(second));
    // A screen reader hears the folder and its count, not the tooltip's path.
    assert.equal(t.api.tree.getTreeItem(await folderNode(second)).accessibilityInformation?.label, `${second.name}, workspace folder, 1 checkpoint`);
    assert.equal(t.api.tree.getTreeItem(await folderNode(first)).accessibilityInformation?.label, `${first.name}, workspace folder, 0 checkpoints`);

    await vscode.commands.executeCommand('checkpoint.refresh');
    assert.deepEqual((await roots()).map((n) => t.api.tree.getTreeItem(n).id), ids, 'the same ids after a full re-scan');
    const again = (await folderChildren(t.api, second))[0];
    assert.equal(t.api.tree.getTreeItem(again).id, `${second.uri.toString()}#in-second`);
  });

  it('resumes in one folder without touching the other', async () => {
    const inFirst = await save(first, { name: 'shared', leftOff: 'A side' });
    assert.equal(inFirst, path.join(dirA, 'checkpoint-shared.md'));
    assert.equal(await save(second, { name: 'shared', leftOff: 'B side' }), path.join(dirB, 'checkpoint-shared.md'));
    const fileA = readFileSync(inFirst, 'utf8');
    const indexA = readIndex(dirA);
    const activeA = t.api.model.folder(first).recorded();

    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'shared', folder: second.uri.fsPath });
    assert.ok(r);
    assert.equal(r.checkpoint.leftOff, 'B side');
    assert.equal(r.consumed, true);
    assert.ok(r.trashPath?.startsWith(path.join(dirB, '.trash') + path.sep), r.trashPath);
    assert.equal(existsSync(path.join(dirB, 'checkpoint-shared.md')), false);
    assert.doesNotMatch(readIndex(dirB), /\*\*shared\*\*/);

    assert.equal(readFileSync(inFirst, 'utf8'), fileA, 'the first folder\'s checkpoint of the same name is untouched');
    assert.equal(readIndex(dirA), indexA);
    assert.equal(existsSync(path.join(dirA, '.trash')), false);
    assert.deepEqual(t.api.model.folder(first).recorded(), activeA);
    assert.equal(t.api.model.folder(second).recorded()?.path, r.trashPath);
    assert.ok((await labels(t.api, first)).includes('shared'));
    assert.ok(!(await labels(t.api, second)).includes('shared'));

    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), path.join(dirB, 'checkpoint-shared.md'));
    assert.ok((await labels(t.api, second)).includes('shared'));
    assert.equal(readFileSync(inFirst, 'utf8'), fileA);
    await closeEditors(); // the resumed checkpoint's preview
  });

  it('shows in the status bar the folder of the active editor, else the folder last acted on', async () => {
    const state = (): { folder?: string; name?: string } => ({ folder: t.api.statusBar.state.folder, name: t.api.statusBar.state.name });
    const openIn = async (folder: vscode.WorkspaceFolder): Promise<void> => {
      await vscode.window.showTextDocument(vscode.Uri.file(path.join(folder.uri.fsPath, 'README.md')));
    };
    await save(first, { name: 'first-active', leftOff: 'A' });
    assert.deepEqual(state(), { folder: first.name, name: 'first-active' });
    await save(second, { name: 'second-active', leftOff: 'B' });
    assert.deepEqual(state(), { folder: second.name, name: 'second-active' }, 'no editor: the folder last acted on');

    await openIn(first);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.folder === first.name, 'the status bar to follow the editor to the first folder');
    assert.equal(t.api.statusBar.state.name, 'first-active');
    // Acting on the second folder while an editor of the first is active: the editor wins.
    await save(second, { name: 'second-again', leftOff: 'B again' });
    assert.deepEqual(state(), { folder: first.name, name: 'first-active' });

    await openIn(second);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.folder === second.name, 'the status bar to follow the editor to the second folder');
    assert.equal(t.api.statusBar.state.name, 'second-again');

    // The other folder's branch does not matter: a checkout in the second folder warns only while it is shown.
    git(second.uri.fsPath, 'branch', other);
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: second.uri.fsPath, branch: other }), true);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.branchMismatch, 'the status bar to warn about the second folder\'s branch');
    assert.equal(t.api.statusBar.state.currentBranch, other);
    await openIn(first);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.folder === first.name, 'the status bar to follow the editor to the first folder');
    assert.equal(t.api.statusBar.state.branchMismatch, false, 'the first folder is on its checkpoint\'s branch');

    // No editor: back to the folder last used — the first, whose editor was active last.
    await closeEditors();
    assert.deepEqual(state(), { folder: first.name, name: 'first-active' });
    assert.equal(await vscode.commands.executeCommand('checkpoint.switchBranch', { folder: second.uri.fsPath }), true);
    assert.equal(currentBranch(second.uri.fsPath), 'main');
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { name: 'second-again', folder: second.uri.fsPath, keep: true });
    assert.ok(r);
    assert.deepEqual(state(), { folder: second.name, name: 'second-again' }, 'resuming makes the second folder the one last acted on');
    assert.equal(t.api.statusBar.state.branchMismatch, false);
    await closeEditors();
  });

  it('lists every folder\'s checkpoints in the tree, each under its own node', async () => {
    const byFolder = async (f: vscode.WorkspaceFolder): Promise<string[]> => (await labels(t.api, f)).sort();
    assert.deepEqual(await byFolder(first), ['first-active', 'shared']);
    assert.deepEqual(await byFolder(second), ['in-second', 'second-active', 'second-again', 'shared']);
    const node: CheckpointNode = await folderNode(first);
    assert.equal(t.api.tree.getTreeItem(node).accessibilityInformation?.label, `${first.name}, workspace folder, 2 checkpoints`);
  });

  return {
    async setup() {
      [first, second] = vscode.workspace.workspaceFolders!;
      await closeEditors();
      dirA = t.temp('multi-a');
      dirB = t.temp('multi-b');
      dirC = t.temp('multi-c');
      await useMemoryDir(t.api, first, dirA);
      await useMemoryDir(t.api, second, dirB);
    },
    async teardown() {
      await closeEditors();
      restoreBranch(second.uri.fsPath, 'main', other);
      await t.api.model.folder(second).setRecorded(undefined);
      await t.api.model.folder(first).setRecorded(undefined);
      t.api.model.useFolder(first); // later suites work in the first folder
      await useMemoryDir(t.api, second, undefined);
      await useMemoryDir(t.api, first, undefined);
    },
  };
});
