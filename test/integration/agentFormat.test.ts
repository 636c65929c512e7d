import * as assert from 'node:assert/strict';
import { copyFileSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../src/editor/views/nodes';
import type { ResumeResult } from '../../src/core/store';
import { git, readIndex, removeDir } from '../support/fixtures';
import { EXTENSION_ID, folderChildren, inWorkbench, label, setSetting, suite, useMemoryDir, waitFor } from './helpers';

/** The corpus of files written the way the session-checkpoint skill writes them (test/fixtures/agent-written). */
const corpus = path.join(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent-written');

interface WelcomeEntry {
  view: string;
  when?: string;
  contents: string;
}

suite('Agent-written checkpoints and Claude Code\'s memory folder', { watchers: true }, (t) => {
  /** Every node under the folder (plan nodes opened). */
  const allNodes = async (): Promise<CheckpointNode[]> => {
    const out: CheckpointNode[] = [];
    const walk = async (nodes: CheckpointNode[]): Promise<void> => {
      for (const n of nodes) {
        out.push(n);
        if (n.kind === 'plan') await walk(await t.api.tree.getChildren(n));
      }
    };
    await walk(await folderChildren(t.api, t.folder));
    return out;
  };

  it('a click in the tree resumes a checkpoint the agent saved under a loose name ("My Feature": a space, capitals, no front matter)', async () => {
    const file = path.join(t.dir, 'checkpoint-My Feature.md');
    const index = path.join(t.dir, 'MEMORY.md');
    copyFileSync(path.join(corpus, 'indexes', 'skill.md'), index);
    // Every checkpoint the index names is there (an index bullet whose file is gone would be dropped as stale).
    const names = (JSON.parse(readFileSync(path.join(corpus, 'corpus.json'), 'utf8')) as { checkpoints: Record<string, string> }).checkpoints;
    for (const [fixture, name] of Object.entries(names)) copyFileSync(path.join(corpus, 'checkpoints', fixture), path.join(t.dir, `checkpoint-${name}.md`));
    const before = readFileSync(index, 'utf8');
    const find = async (): Promise<CheckpointNode | undefined> => (await allNodes()).find((n) => n.kind === 'checkpoint' && label(t.api, n) === 'My Feature');
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find()) !== undefined, 'the agent\'s checkpoint in the tree');
    const node = (await find())!;
    const item = t.api.tree.getTreeItem(node);
    assert.ok(item.command, 'a click runs a command');
    const r = await vscode.commands.executeCommand<ResumeResult>(item.command.command, ...(item.command.arguments ?? []));
    assert.ok(r, 'the click resumed it');
    assert.equal(r.checkpoint.leftOff, 'The agent kept the space in this name; the plan is the same one as fix:-login\'s.');
    assert.equal(r.consumed, true);
    assert.equal(existsSync(file), false, 'the file went to the trash');
    assert.ok(r.trashPath && existsSync(r.trashPath));
    // Only its own bullet left MEMORY.md: every other byte, the other agents' bullets included, is as it was.
    const after = readIndex(t.dir);
    assert.equal(after, before.replace(/^- \*\*My Feature\*\* .*\n/m, ''));
    assert.equal((after.match(/^## Active Checkpoints$/gm) ?? []).length, 1);
    await waitFor(t.api.tree.onDidChangeTreeData, async () => !(await allNodes()).some((n) => label(t.api, n) === 'My Feature'), 'the resumed checkpoint to leave the tree');
  });

  it('a name typed as a person types it ("fix: login") resumes the agent\'s checkpoint-fix:-login.md, and saving that name asks to overwrite it', async () => {
    const file = path.join(t.dir, 'checkpoint-fix:-login.md');
    writeFileSync(file, '# Checkpoint: fix: login\n\n- **Branch:** `main`\n\n## Left Off\nCookie refresh runs too early\n');
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await allNodes()).some((n) => label(t.api, n) === 'fix:-login'), 'the agent\'s checkpoint in the tree');
    // Saving the typed name does not write a second checkpoint beside the agent's.
    const saved = await vscode.commands.executeCommand('checkpoint.save', { folder: t.cwd, name: 'fix: login', leftOff: 'Second try' });
    assert.equal(saved, undefined, 'nothing saved');
    const shown = await inWorkbench({ action: 'notification', text: 'already exists' });
    assert.match(shown.text, /A checkpoint named "fix:-login" already exists/);
    assert.equal(existsSync(path.join(t.dir, 'checkpoint-fix-login.md')), false, 'no second checkpoint fix-login');
    const r = await vscode.commands.executeCommand<ResumeResult>('checkpoint.resume', { folder: t.cwd, name: 'Fix: Login' });
    assert.ok(r, 'resumed');
    assert.equal(r.checkpoint.leftOff, 'Cookie refresh runs too early');
    assert.equal(existsSync(file), false, 'the agent\'s file went to the trash');
    await waitFor(t.api.tree.onDidChangeTreeData, async () => !(await allNodes()).some((n) => label(t.api, n) === 'fix:-login'), 'the resumed checkpoint to leave the tree');
  });

  it('Undo after an overwrite puts the previous version back; the newer one stays in the trash', async () => {
    const file = path.join(t.dir, 'checkpoint-overwritten.md');
    await vscode.commands.executeCommand('checkpoint.save', { folder: t.cwd, name: 'overwritten', leftOff: 'First version' });
    await vscode.commands.executeCommand('checkpoint.save', { folder: t.cwd, name: 'overwritten', leftOff: 'Second version', force: true });
    assert.match(readFileSync(file, 'utf8'), /^## Left Off\nSecond version$/m);
    assert.equal(t.api.contextKeys.get('checkpoint.canUndo'), true, 'Undo is offered after an overwrite');
    const restored = await vscode.commands.executeCommand<string>('checkpoint.undo');
    assert.equal(restored, file);
    assert.match(readFileSync(file, 'utf8'), /^## Left Off\nFirst version$/m);
    assert.match(readIndex(t.dir), /^- \*\*overwritten\*\* \(.*\) — First version$/m);
    const trash = path.join(t.dir, '.trash');
    const trashed = readdirSync(trash, { recursive: true, encoding: 'utf8' })
      .map((f) => path.join(trash, f))
      .filter((f) => f.endsWith('.md') && readFileSync(f, 'utf8').includes('Second version'));
    assert.equal(trashed.length, 1, 'the newer version is in the trash');
    assert.equal(t.api.statusBar.state.name, 'overwritten');
  });

  describe('the welcome view says which of Claude Code\'s memory folders is used', () => {
    const welcome = (): WelcomeEntry[] =>
      (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { viewsWelcome: WelcomeEntry[] } }).contributes.viewsWelcome;
    /** The one welcome entry shown for source 'claude' and this kind of Claude memory folder. */
    const shownFor = (kind: string): WelcomeEntry => {
      const entries = welcome().filter((w) => {
        const when = w.when ?? '';
        if (!when.includes("checkpoint.memoryDirSource == 'claude'")) return false;
        const eq = [...when.matchAll(/checkpoint\.claudeMemory == '(\w+)'/g)].map((m) => m[1]);
        const ne = [...when.matchAll(/checkpoint\.claudeMemory != '(\w+)'/g)].map((m) => m[1]);
        return eq.every((v) => v === kind) && !ne.includes(kind);
      });
      assert.equal(entries.length, 1, `one welcome entry for ${kind}`);
      return entries[0];
    };
    const claudeSettings = path.join(process.env.CLAUDE_CONFIG_DIR ?? '', 'settings.json');

    after(async () => {
      rmSync(claudeSettings, { force: true });
      await useMemoryDir(t.api, t.folder, t.dir);
    });

    it('autoMemoryDirectory in Claude Code\'s settings', async function () {
      if (!process.env.CLAUDE_CONFIG_DIR) this.skip();
      const named = t.temp('auto-memory');
      writeFileSync(claudeSettings, JSON.stringify({ autoMemoryDirectory: named }));
      await setSetting(t.folder, 'memoryDirectory', undefined);
      await vscode.commands.executeCommand('checkpoint.refresh');
      await waitFor(t.api.model.onDidChange, async () => (await t.api.model.folder(t.folder).memoryDir()).dir === named, 'the folder autoMemoryDirectory names');
      assert.equal(t.api.contextKeys.get('checkpoint.memoryDirSource'), 'claude');
      assert.equal(t.api.contextKeys.get('checkpoint.claudeMemory'), 'autoMemoryDirectory');
      assert.match(shownFor('autoMemoryDirectory').contents, /folder that autoMemoryDirectory names in Claude Code's settings/);
      rmSync(claudeSettings);
      await vscode.commands.executeCommand('checkpoint.refresh');
      await waitFor(t.api.model.onDidChange, () => t.api.contextKeys.get('checkpoint.claudeMemory') === 'project', 'the project\'s own Claude folder again');
      assert.match(shownFor('project').contents, /Claude Code's memory folder for this project/);
    });

    it('a linked worktree uses, and says it uses, the memory folder of the repository\'s main worktree (multi-root window)', async function () {
      if ((vscode.workspace.workspaceFolders?.length ?? 0) < 2 || !process.env.CLAUDE_CONFIG_DIR) this.skip(); // adding a folder to a single-folder window restarts the extension host
      const [first, second] = vscode.workspace.workspaceFolders!;
      const worktree = path.join(t.temp('worktree'), 'linked');
      git(second.uri.fsPath, 'worktree', 'add', '-q', '-b', `checkpoint-it-linked-${process.pid}`, worktree);
      const othersDir = t.temp('others');
      await setSetting(second, 'memoryDirectory', othersDir);
      try {
        const added = waitFor(vscode.workspace.onDidChangeWorkspaceFolders, () => (vscode.workspace.workspaceFolders?.length ?? 0) === 3, 'the worktree folder');
        assert.ok(vscode.workspace.updateWorkspaceFolders(2, 0, { uri: vscode.Uri.file(worktree) }));
        await added;
        const linked = vscode.workspace.workspaceFolders![2];
        const resolved = await t.api.model.folder(linked).memoryDir();
        assert.equal(resolved.source, 'claude');
        assert.equal(resolved.claude?.projectRoot, second.uri.fsPath, 'named after the main worktree');
        await waitFor(t.api.model.onDidChange, () => t.api.contextKeys.get('checkpoint.claudeMemory') === 'mainWorktree', 'the welcome key for a linked worktree').catch((err: Error) => {
          const kinds = vscode.workspace.workspaceFolders!.map((f) => `${f.name}: ${t.api.model.folder(f).memoryDirNow()?.source}`);
          throw new Error(`${err.message}; the key is ${String(t.api.contextKeys.get('checkpoint.claudeMemory'))} (${kinds.join(', ')})`);
        });
        assert.match(shownFor('mainWorktree').contents, /linked worktree .* main worktree/);
        assert.notEqual(first.uri.fsPath, linked.uri.fsPath);
      } finally {
        // VS Code refuses a folder change while the previous one is still being written to the workspace file: retry.
        for (let attempt = 0; attempt < 50 && vscode.workspace.workspaceFolders?.length === 3; attempt++) {
          const removed = waitFor(vscode.workspace.onDidChangeWorkspaceFolders, () => (vscode.workspace.workspaceFolders?.length ?? 0) === 2, 'the worktree folder to go');
          if (vscode.workspace.updateWorkspaceFolders(2, 1)) await removed;
          else {
            removed.catch(() => undefined);
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
        }
        assert.equal(vscode.workspace.workspaceFolders?.length, 2, 'the worktree folder was removed from the workspace');
        await setSetting(second, 'memoryDirectory', undefined);
        git(second.uri.fsPath, 'worktree', 'remove', '--force', worktree);
        removeDir(path.dirname(worktree));
      }
    });
  });
});

