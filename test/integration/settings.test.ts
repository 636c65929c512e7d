import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { removeDir } from '../support/fixtures';
import { EXTENSION_ID, labels, save, setSetting, suite, useMemoryDir, waitFor } from './helpers';

interface WelcomeEntry {
  view: string;
  when?: string;
  contents: string;
}

suite('Settings', { memoryDir: false }, (t) => {
  const relative = '.checkpoint-it-memory';
  let a: string;
  let b: string;

  it('re-resolves the memory directory when checkpoint.memoryDirectory changes', async () => {
    await useMemoryDir(t.api, t.folder, a);
    assert.equal(await save(t.folder, { name: 'in-a', leftOff: 'A' }), path.join(a, 'checkpoint-in-a.md'));
    assert.deepEqual(await labels(t.api, t.folder), ['in-a']);
    await useMemoryDir(t.api, t.folder, b);
    assert.deepEqual(await labels(t.api, t.folder), []);
    assert.equal(await save(t.folder, { name: 'in-b', leftOff: 'B' }), path.join(b, 'checkpoint-in-b.md'));
    assert.equal(existsSync(path.join(a, 'checkpoint-in-b.md')), false);
    assert.deepEqual(await labels(t.api, t.folder), ['in-b']);
  });

  it('resolves a relative checkpoint.memoryDirectory against the workspace folder', async () => {
    const expected = path.join(t.folder.uri.fsPath, relative);
    await useMemoryDir(t.api, t.folder, relative, expected);
    assert.equal(await save(t.folder, { name: 'relative', leftOff: 'R' }), path.join(expected, 'checkpoint-relative.md'));
  });

  it('tells the welcome view where this workspace\'s checkpoints are stored (context key checkpoint.memoryDirSource)', async () => {
    const welcome = (vscode.extensions.getExtension(EXTENSION_ID)?.packageJSON as { contributes: { viewsWelcome: WelcomeEntry[] } }).contributes.viewsWelcome;
    const sources: [string, RegExp][] = [
      ['setting', /Memory Directory setting/],
      ['env', /CHECKPOINT_MEMORY_DIR environment variable/],
      ['claude', /Claude Code's memory folder for this project/],
      ['workspace', /\.claude\/memory inside the workspace folder/],
      ['mixed', /different places/],
    ];
    for (const [source, names] of sources) {
      // Claude's folder has an entry per kind (agentFormat.test.ts): here the one for the project's own folder.
      const entries = welcome.filter((w) => w.when?.includes(`checkpoint.memoryDirSource == '${source}'`) && !w.when.includes('checkpoint.claudeMemory =='));
      assert.equal(entries.length, 1, `one welcome entry for ${source}`);
      assert.match(entries[0].contents, names);
    }
    // The end-to-end flows click the one "Save a Checkpoint" button of the welcome view.
    assert.equal(welcome.filter((w) => w.contents.includes('[Save a Checkpoint](command:checkpoint.save)')).length, 1);

    // The key: the folders' common source, or 'mixed' (multi-root folders that differ).
    const folders = vscode.workspace.workspaceFolders ?? [];
    const expected = async (): Promise<string> => {
      const all = new Set(await Promise.all(folders.map(async (f) => (await t.api.model.folder(f).memoryDir()).source)));
      return all.size > 1 ? 'mixed' : [...all][0];
    };
    const key = (): unknown => t.api.contextKeys.get('checkpoint.memoryDirSource');
    await useMemoryDir(t.api, t.folder, a);
    assert.equal((await t.api.model.folder(t.folder).memoryDir()).source, 'setting');
    assert.equal(key(), await expected());
    if (folders.length === 1) assert.equal(key(), 'setting');
    await useMemoryDir(t.api, t.folder, undefined);
    await waitFor(t.api.model.onDidChange, async () => (await t.api.model.folder(t.folder).memoryDir()).source !== 'setting', 'the default memory directory');
    assert.equal(key(), await expected());
    if (folders.length === 1) assert.equal(key(), (await t.api.model.folder(t.folder).memoryDir()).source);
    await useMemoryDir(t.api, t.folder, a); // never write to the real default folder
  });

  it('hides the status bar item when checkpoint.statusBar.enabled is false', async () => {
    await save(t.folder, { name: 'visible', leftOff: 'V', force: true });
    assert.equal(t.api.statusBar.state.visible, true);
    await setSetting(t.folder, 'statusBar.enabled', false, vscode.ConfigurationTarget.Workspace);
    await waitFor(t.api.statusBar.onDidChangeState, () => !t.api.statusBar.state.visible, 'the status bar item to hide');
    await setSetting(t.folder, 'statusBar.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.visible, 'the status bar item to show again');
    assert.equal(t.api.statusBar.state.name, 'visible');
  });

  return {
    setup() {
      a = t.temp('settings-a');
      b = t.temp('settings-b');
    },
    async teardown() {
      await setSetting(t.folder, 'statusBar.enabled', undefined, vscode.ConfigurationTarget.Workspace);
      await useMemoryDir(t.api, t.folder, undefined);
      removeDir(path.join(t.folder.uri.fsPath, relative));
    },
  };
});
