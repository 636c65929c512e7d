import * as assert from 'node:assert/strict';
import { existsSync, rmSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import type { CheckpointApi } from '../../src/extension';
import {
  NEEDS_TRUST, SUITE_TIMEOUT, activateExtension, ensureCommit, firstFolder, labels, readIndex, save, setSetting, skipSuite, tempDir, useMemoryDir,
} from './helpers';

describe('Checkpoint: Resume, Undo, Delete', function () {
  this.timeout(SUITE_TIMEOUT);
  let api: CheckpointApi;
  let folder: vscode.WorkspaceFolder;
  let dir: string;
  const file = (name: string): string => path.join(dir, `checkpoint-${name}.md`);
  const resume = (arg?: unknown): Thenable<ResumeResult | undefined> => vscode.commands.executeCommand<ResumeResult | undefined>('checkpoint.resume', arg);

  before(async function () {
    if (!vscode.workspace.isTrusted) skipSuite(this, NEEDS_TRUST);
    api = await activateExtension();
    folder = firstFolder();
    ensureCommit(folder.uri.fsPath);
    dir = tempDir('resume');
    await useMemoryDir(api, folder, dir);
  });

  afterEach(async () => {
    if (!api) return; // skipped
    await setSetting(folder, 'afterResume', undefined);
  });

  after(async () => {
    if (!api) return; // skipped
    await useMemoryDir(api, folder, undefined);
    rmSync(dir, { recursive: true, force: true });
  });

  it('says there is nothing to resume when there is no checkpoint', async () => {
    assert.equal(await resume(), undefined);
  });

  it('resumes the only checkpoint directly, consuming it: file to trash, bullet removed', async () => {
    await save(folder, { name: 'resume-me', leftOff: 'Where I was', failed: ['Tried X — broke Y'] });
    const r = await resume();
    assert.ok(r);
    assert.equal(r.checkpoint.name, 'resume-me');
    assert.deepEqual(r.checkpoint.failed, ['Tried X — broke Y']);
    assert.equal(r.branchMismatch, false);
    assert.equal(r.consumed, true);
    assert.ok(r.trashPath);
    assert.ok(r.trashPath.startsWith(path.join(dir, '.trash') + path.sep), r.trashPath);
    assert.ok(existsSync(r.trashPath));
    assert.equal(existsSync(file('resume-me')), false);
    assert.doesNotMatch(readIndex(dir), /\*\*resume-me\*\*/);
    assert.ok(!(await labels(api, folder)).includes('resume-me'));
    // Consumed, and no other checkpoint left: the status bar has nothing to show.
    assert.equal(api.statusBar.state.visible, false);
  });

  it('Undo puts the consumed file and its bullet back', async () => {
    const restored = await vscode.commands.executeCommand<string>('checkpoint.undo');
    assert.equal(restored, file('resume-me'));
    assert.ok(existsSync(file('resume-me')));
    assert.match(readIndex(dir), /^- \*\*resume-me\*\* \(.*\) — Where I was$/m);
    assert.ok((await labels(api, folder)).includes('resume-me'));
    assert.equal(api.statusBar.state.name, 'resume-me', 'back in the status bar');
  });

  it('keeps the checkpoint when checkpoint.afterResume is "keep"', async () => {
    await setSetting(folder, 'afterResume', 'keep');
    const r = await resume({ name: 'resume-me', folder: folder.uri.fsPath });
    assert.ok(r);
    assert.equal(r.consumed, false);
    assert.equal(r.trashPath, undefined);
    assert.ok(existsSync(file('resume-me')));
    assert.match(readIndex(dir), /\*\*resume-me\*\*/);
  });

  it('copies a resume prompt built by the core', async () => {
    const text = await vscode.commands.executeCommand<string>('checkpoint.copyResumePrompt', { name: 'resume-me', folder: folder.uri.fsPath });
    assert.match(text, /^Resume the work saved in checkpoint "resume-me"/);
    assert.match(text, /Do not retry these failed approaches: Tried X — broke Y/);
  });

  it('deletes to trash with the index bullet, and Undo restores it', async () => {
    const trashPath = await vscode.commands.executeCommand<string>('checkpoint.delete', { name: 'resume-me', folder: folder.uri.fsPath });
    assert.ok(trashPath && existsSync(trashPath));
    assert.ok(trashPath.startsWith(path.join(dir, '.trash') + path.sep));
    assert.equal(existsSync(file('resume-me')), false);
    assert.doesNotMatch(readIndex(dir), /\*\*resume-me\*\*/);
    assert.equal(api.statusBar.state.visible, false, 'deleting the active checkpoint hides the status bar item');
    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), file('resume-me'));
    assert.match(readIndex(dir), /\*\*resume-me\*\*/);
  });

  it('deletes all checkpoints of the folder (confirmation skipped) and removes the index section', async () => {
    await save(folder, { name: 'second', leftOff: 'Another' });
    const count = await vscode.commands.executeCommand<number>('checkpoint.deleteAll', { folder: folder.uri.fsPath, confirm: false });
    assert.equal(count, 2);
    assert.equal(existsSync(file('resume-me')), false);
    assert.equal(existsSync(file('second')), false);
    assert.doesNotMatch(readIndex(dir), /## (?:Active )?Checkpoints/);
    assert.deepEqual(await labels(api, folder), []);
  });

  it('reports a missing checkpoint without writing anything', async () => {
    assert.equal(await resume({ name: 'never-saved', folder: folder.uri.fsPath }), undefined);
  });
});
