import * as assert from 'node:assert/strict';
import { readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../src/editor/views/nodes';
import { currentBranch } from '../support/fixtures';
import { folderChildren, label, labels, save, suite, waitFor } from './helpers';

suite('Checkpoints view', { watchers: true }, (t) => {
  let plan: string;

  const find = async (name: string): Promise<CheckpointNode | undefined> =>
    (await folderChildren(t.api, t.folder)).find((n) => label(t.api, n) === name);

  it('is empty (welcome view) before anything is saved', async () => {
    assert.deepEqual(await labels(t.api, t.folder), []);
  });

  it('shows plan nodes with their plan-scoped checkpoints first, then named ones, newest first', async () => {
    await save(t.folder, { name: 'alpha', leftOff: 'A' });
    await save(t.folder, { name: 'beta', leftOff: 'B', plan });
    await save(t.folder, { name: 'gamma', leftOff: 'G' });
    await save(t.folder, { name: 'delta', leftOff: 'D', plan });
    const nodes = await folderChildren(t.api, t.folder);
    assert.deepEqual(nodes.map((n) => label(t.api, n)), ['fix-auth-race · step 3 of 7', 'gamma', 'alpha']);
    assert.equal(nodes[0].kind, 'plan');
    const inPlan = await t.api.tree.getChildren(nodes[0]);
    assert.deepEqual(inPlan.map((n) => label(t.api, n)), ['delta', 'beta']);
  });

  it('gives plan and checkpoint items an accessible name (not the tooltip\'s path)', async () => {
    const branch = currentBranch(t.folder.uri.fsPath);
    const nodes = await folderChildren(t.api, t.folder);
    const plan = t.api.tree.getTreeItem(nodes[0]);
    assert.equal(plan.description, '2 checkpoints');
    assert.equal(plan.accessibilityInformation?.label, 'Plan fix-auth-race, step 3 of 7, 2 checkpoints');
    const gamma = await find('gamma');
    assert.ok(gamma);
    assert.equal(t.api.tree.getTreeItem(gamma).accessibilityInformation?.label, `gamma, saved on branch ${branch}, just now`);
  });

  it('renders an item: description "branch · time", Markdown tooltip, click resumes, stable id', async () => {
    const branch = currentBranch(t.folder.uri.fsPath);
    const node = await find('gamma');
    assert.ok(node);
    const item = t.api.tree.getTreeItem(node);
    assert.equal(item.description, `${branch} · just now`);
    assert.match(String(item.contextValue), /checkpoint:item/);
    assert.doesNotMatch(String(item.contextValue), /checkpoint:mismatch/);
    assert.equal(item.command?.command, 'checkpoint.resume');
    assert.equal(item.command?.arguments?.[0], node);
    assert.ok(item.tooltip instanceof vscode.MarkdownString);
    assert.match(item.tooltip.value, /Left off:/);
    assert.match(item.tooltip.value, /Modified files:/);
    assert.equal(item.id, `${t.folder.uri.toString()}#gamma`);
    // Stable across a full re-scan.
    await vscode.commands.executeCommand('checkpoint.refresh');
    const again = await find('gamma');
    assert.ok(again);
    assert.equal(t.api.tree.getTreeItem(again).id, item.id);
  });

  it('shows an unreadable file as an item with the reason and an Open action (from the watcher)', async () => {
    // No readable body either (a body alone would be read, the front matter skipped: see below).
    writeFileSync(path.join(t.dir, 'checkpoint-broken.md'), '---\nname: [unclosed\n---\nnotes only\n');
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find('broken')) !== undefined, 'the unreadable file to appear in the tree');
    const node = await find('broken');
    assert.ok(node);
    const item = t.api.tree.getTreeItem(node);
    assert.equal(item.contextValue, 'checkpoint:unreadable');
    assert.match(String(item.accessibilityInformation?.label), /^broken, unreadable checkpoint file: invalid front matter/);
    // A short reason in the row; the parser's whole message in the tooltip; below every readable checkpoint.
    assert.match(String(item.description), /^unreadable: front matter is not valid YAML, line \d+$/);
    assert.match((item.tooltip as vscode.MarkdownString).value.replaceAll('&nbsp;', ' '), /could not be read: invalid front matter: .* at line \d+, column \d+/);
    assert.equal((await labels(t.api, t.folder)).at(-1), 'broken');
    assert.equal(item.command?.command, 'checkpoint.open');
    const opened = await vscode.commands.executeCommand<string>('checkpoint.open', node);
    assert.equal(opened, path.join(t.dir, 'checkpoint-broken.md'));
  });

  it('shows a checkpoint whose front matter does not parse, read by its body, with a note that says so', async () => {
    writeFileSync(path.join(t.dir, 'checkpoint-slipped.md'), '---\ndescription: Login: cookie not set\n---\n# Checkpoint: slipped\n\n- **Branch:** `fix/login`\n\n## Left Off\n\nLogin: cookie not set.\n');
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find('slipped')) !== undefined, 'the slipped checkpoint to appear in the tree');
    const item = t.api.tree.getTreeItem((await find('slipped'))!);
    assert.match(String(item.contextValue), /checkpoint:item/, 'a checkpoint, resumable with a click');
    assert.match(String(item.description), /^fix\/login · .* · front matter skipped$/);
    // appendText escapes Markdown's characters with backslashes: compared without them.
    assert.match((item.tooltip as vscode.MarkdownString).value.replaceAll('&nbsp;', ' ').replaceAll('\\', ''), /front matter skipped \(invalid front matter: .*\); read from its Markdown body/);
    assert.match(String(item.accessibilityInformation?.label), /front matter skipped/);
    assert.equal(readFileSync(path.join(t.dir, 'checkpoint-slipped.md'), 'utf8').startsWith('---\ndescription: Login: cookie not set\n'), true, 'never rewritten');
    rmSync(path.join(t.dir, 'checkpoint-slipped.md'));
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find('slipped')) === undefined, 'the slipped checkpoint to leave the tree');
  });

  it('re-reads a checkpoint changed on disk and drops one deleted on disk', async () => {
    const file = path.join(t.dir, 'checkpoint-alpha.md');
    writeFileSync(file, readFileSync(file, 'utf8').replace(/^## Left Off\nA$/m, '## Left Off\nA, edited by an agent'));
    await waitFor(
      t.api.tree.onDidChangeTreeData,
      async () => {
        const node = await find('alpha');
        return node?.kind === 'checkpoint' && node.summary.checkpoint?.leftOff === 'A, edited by an agent';
      },
      'the edited file to be re-read',
    );
    rmSync(path.join(t.dir, 'checkpoint-broken.md'));
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find('broken')) === undefined, 'the deleted file to leave the tree');
  });

  return {
    setup() {
      plan = path.join(t.temp('tree-plans'), 'fix-auth-race.md');
      writeFileSync(plan, '# Fix the auth race\n- [x] one\n- [x] two\n- [ ] three\n- [ ] four\n- [ ] five\n- [ ] six\n- [ ] seven\n');
    },
  };
});
