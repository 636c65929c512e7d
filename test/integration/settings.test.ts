import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/extension';
import {
  EXTENSION_ID, NEEDS_TRUST, SUITE_TIMEOUT, activateExtension, ensureCommit, firstFolder, labels, save, setSetting, skipSuite, tempDir, useMemoryDir, waitFor,
} from './helpers';

interface WelcomeEntry {
  view: string;
  when?: string;
  contents: string;
}

describe('Settings', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let a: string;
  let b: string;
  const relative = '.checkpoint-it-memory';

  before(async function () {
    if (!vscode.workspace.isTrusted) skipSuite(this, NEEDS_TRUST);
    api = await activateExtension();
    folder = firstFolder();
    ensureCommit(folder.uri.fsPath);
    a = tempDir('settings-a');
    b = tempDir('settings-b');
  });

  after(async () => {
    if (!api) return; // skipped
    await setSetting(folder, 'statusBar.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    await useMemoryDir(api, folder, undefined);
    for (const d of [a, b, path.join(folder.uri.fsPath, relative)]) rmSync(d, { recursive: true, force: true });
  });

  it('re-resolves the memory directory when checkpoint.memoryDirectory changes', async () => {
    await useMemoryDir(api, folder, a);
    assert.equal(await save(folder, { name: 'in-a', leftOff: 'A' }), path.join(a, 'checkpoint-in-a.md'));
    assert.deepEqual(await labels(api, folder), ['in-a']);
    await useMemoryDir(api, folder, b);
    assert.deepEqual(await labels(api, folder), []);
    assert.equal(await save(folder, { name: 'in-b', leftOff: 'B' }), path.join(b, 'checkpoint-in-b.md'));
    assert.equal(existsSync(path.join(a, 'checkpoint-in-b.md')), false);
    assert.deepEqual(await labels(api, folder), ['in-b']);
  });

  it('resolves a relative checkpoint.memoryDirectory against the workspace folder', async () => {
    const expected = path.join(folder.uri.fsPath, relative);
    await useMemoryDir(api, folder, relative, expected);
    assert.equal(await save(folder, { name: 'relative', leftOff: 'R' }), path.join(expected, 'checkpoint-relative.md'));
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
      const entries = welcome.filter((w) => w.when?.includes(`checkpoint.memoryDirSource == '${source}'`));
      assert.equal(entries.length, 1, `one welcome entry for ${source}`);
      assert.match(entries[0].contents, names);
    }
    // The end-to-end flows click the one "Save a Checkpoint" button of the welcome view.
    assert.equal(welcome.filter((w) => w.contents.includes('[Save a Checkpoint](command:checkpoint.save)')).length, 1);

    // The key: the folders' common source, or 'mixed' (multi-root folders that differ).
    const folders = vscode.workspace.workspaceFolders ?? [];
    const expected = async (): Promise<string> => {
      const all = new Set(await Promise.all(folders.map(async (f) => (await api.model.memoryDir(f)).source)));
      return all.size > 1 ? 'mixed' : [...all][0];
    };
    const key = (): unknown => api.contextKeys.get('checkpoint.memoryDirSource');
    await useMemoryDir(api, folder, a);
    assert.equal((await api.model.memoryDir(folder)).source, 'setting');
    assert.equal(key(), await expected());
    if (folders.length === 1) assert.equal(key(), 'setting');
    await useMemoryDir(api, folder, undefined);
    await waitFor(api.model.onDidChange, async () => (await api.model.memoryDir(folder)).source !== 'setting', 'the default memory directory');
    assert.equal(key(), await expected());
    if (folders.length === 1) assert.equal(key(), (await api.model.memoryDir(folder)).source);
    await useMemoryDir(api, folder, a); // never write to the real default folder
  });

  it('hides the status bar item when checkpoint.statusBar.enabled is false', async () => {
    await save(folder, { name: 'visible', leftOff: 'V', force: true });
    assert.equal(api.statusBar.state.visible, true);
    await setSetting(folder, 'statusBar.enabled', false, vscode.ConfigurationTarget.Workspace);
    await waitFor(api.statusBar.onDidChangeState, () => !api.statusBar.state.visible, 'the status bar item to hide');
    await setSetting(folder, 'statusBar.enabled', undefined, vscode.ConfigurationTarget.Workspace);
    await waitFor(api.statusBar.onDidChangeState, () => api.statusBar.state.visible, 'the status bar item to show again');
    assert.equal(api.statusBar.state.name, 'visible');
  });
});
