import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/extension';
import {
  SUITE_TIMEOUT, activateExtension, ensureCommit, firstFolder, labels, save, setSetting, tempDir, useMemoryDir, waitFor,
} from './helpers';

describe('Settings', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let a: string;
  let b: string;
  const relative = '.checkpoint-it-memory';

  before(async () => {
    api = await activateExtension();
    folder = firstFolder();
    ensureCommit(folder.uri.fsPath);
    a = tempDir('settings-a');
    b = tempDir('settings-b');
  });

  after(async () => {
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
