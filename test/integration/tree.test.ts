import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/extension';
import type { CheckpointNode } from '../../src/views/checkpointTree';
import {
  NEEDS_TRUST, SUITE_TIMEOUT, activateExtension, currentBranch, ensureCommit, firstFolder, folderChildren, label, labels, save, skipSuite, tempDir, useMemoryDir, waitFor, watchersReady,
} from './helpers';

describe('Checkpoints view', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let dir: string;
  let plans: string;
  let plan: string;

  const find = async (name: string): Promise<CheckpointNode | undefined> =>
    (await folderChildren(api, folder)).find((n) => label(api, n) === name);

  before(async function () {
    if (!vscode.workspace.isTrusted) skipSuite(this, NEEDS_TRUST);
    api = await activateExtension();
    folder = firstFolder();
    ensureCommit(folder.uri.fsPath);
    dir = tempDir('tree');
    plans = tempDir('tree-plans');
    plan = path.join(plans, 'fix-auth-race.md');
    writeFileSync(plan, '# Fix the auth race\n- [x] one\n- [x] two\n- [ ] three\n- [ ] four\n- [ ] five\n- [ ] six\n- [ ] seven\n');
    await useMemoryDir(api, folder, dir);
    await watchersReady(api, folder, dir);
  });

  after(async () => {
    if (!api) return; // skipped
    await useMemoryDir(api, folder, undefined);
    rmSync(dir, { recursive: true, force: true });
    rmSync(plans, { recursive: true, force: true });
  });

  it('is empty (welcome view) before anything is saved', async () => {
    assert.deepEqual(await labels(api, folder), []);
  });

  it('shows plan nodes with their plan-scoped checkpoints first, then named ones, newest first', async () => {
    await save(folder, { name: 'alpha', leftOff: 'A' });
    await save(folder, { name: 'beta', leftOff: 'B', plan });
    await save(folder, { name: 'gamma', leftOff: 'G' });
    await save(folder, { name: 'delta', leftOff: 'D', plan });
    const nodes = await folderChildren(api, folder);
    assert.deepEqual(nodes.map((n) => label(api, n)), ['fix-auth-race · step 3 of 7', 'gamma', 'alpha']);
    assert.equal(nodes[0].kind, 'plan');
    const inPlan = await api.tree.getChildren(nodes[0]);
    assert.deepEqual(inPlan.map((n) => label(api, n)), ['delta', 'beta']);
  });

  it('gives plan and checkpoint items an accessible name (not the tooltip\'s path)', async () => {
    const branch = currentBranch(folder.uri.fsPath);
    const nodes = await folderChildren(api, folder);
    const plan = api.tree.getTreeItem(nodes[0]);
    assert.equal(plan.description, '2 checkpoints');
    assert.equal(plan.accessibilityInformation?.label, 'Plan fix-auth-race, step 3 of 7, 2 checkpoints');
    const gamma = await find('gamma');
    assert.ok(gamma);
    assert.equal(api.tree.getTreeItem(gamma).accessibilityInformation?.label, `gamma, saved on branch ${branch}, just now`);
  });

  it('renders an item: description "branch · time", Markdown tooltip, click resumes, stable id', async () => {
    const branch = currentBranch(folder.uri.fsPath);
    const node = await find('gamma');
    assert.ok(node);
    const item = api.tree.getTreeItem(node);
    assert.equal(item.description, `${branch} · just now`);
    assert.match(String(item.contextValue), /checkpoint:item/);
    assert.doesNotMatch(String(item.contextValue), /checkpoint:mismatch/);
    assert.equal(item.command?.command, 'checkpoint.resume');
    assert.equal(item.command?.arguments?.[0], node);
    assert.ok(item.tooltip instanceof vscode.MarkdownString);
    assert.match(item.tooltip.value, /Left off:/);
    assert.match(item.tooltip.value, /Modified files:/);
    assert.equal(item.id, `${folder.uri.toString()}#gamma`);
    // Stable across a full re-scan.
    await vscode.commands.executeCommand('checkpoint.refresh');
    const again = await find('gamma');
    assert.ok(again);
    assert.equal(api.tree.getTreeItem(again).id, item.id);
  });

  it('shows an unreadable file as an item with the reason and an Open action (from the watcher)', async () => {
    writeFileSync(path.join(dir, 'checkpoint-broken.md'), '---\nname: [unclosed\n---\n# Checkpoint: broken\n');
    await waitFor(api.tree.onDidChangeTreeData, async () => (await find('broken')) !== undefined, 'the unreadable file to appear in the tree');
    const node = await find('broken');
    assert.ok(node);
    const item = api.tree.getTreeItem(node);
    assert.equal(item.contextValue, 'checkpoint:unreadable');
    assert.match(String(item.accessibilityInformation?.label), /^broken, unreadable checkpoint file: invalid front matter/);
    assert.match(String(item.description), /^unreadable: invalid front matter/);
    assert.equal(item.command?.command, 'checkpoint.open');
    const opened = await vscode.commands.executeCommand<string>('checkpoint.open', node);
    assert.equal(opened, path.join(dir, 'checkpoint-broken.md'));
  });

  it('re-reads a checkpoint changed on disk and drops one deleted on disk', async () => {
    const file = path.join(dir, 'checkpoint-alpha.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^## Left Off\nA$/m, '## Left Off\nA, edited by an agent'));
    await waitFor(
      api.tree.onDidChangeTreeData,
      async () => {
        const node = await find('alpha');
        return node?.kind === 'checkpoint' && node.summary.checkpoint?.leftOff === 'A, edited by an agent';
      },
      'the edited file to be re-read',
    );
    rmSync(path.join(dir, 'checkpoint-broken.md'));
    await waitFor(api.tree.onDidChangeTreeData, async () => (await find('broken')) === undefined, 'the deleted file to leave the tree');
  });
});
