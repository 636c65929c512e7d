import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import { readIndex } from '../support/fixtures';
import { labels, save, setSetting, suite } from './helpers';

suite('Checkpoint: Resume, Undo, Delete', {}, (t) => {
  const file = (name: string): string => path.join(t.dir, `checkpoint-${name}.md`);
  const resume = (arg?: unknown): Thenable<ResumeResult | undefined> => vscode.commands.executeCommand<ResumeResult | undefined>('checkpoint.resume', arg);

  afterEach(async () => {
    if (t.api) await setSetting(t.folder, 'afterResume', undefined);
  });

  it('says there is nothing to resume when there is no checkpoint', async () => {
    assert.equal(await resume(), undefined);
  });

  it('resumes the only checkpoint directly, consuming it: file to trash, bullet removed', async () => {
    await save(t.folder, { name: 'resume-me', leftOff: 'Where I was', failed: ['Tried X — broke Y'] });
    const r = await resume();
    assert.ok(r);
    assert.equal(r.checkpoint.name, 'resume-me');
    assert.deepEqual(r.checkpoint.failed, ['Tried X — broke Y']);
    assert.equal(r.branchMismatch, false);
    assert.equal(r.consumed, true);
    assert.ok(r.trashPath);
    assert.ok(r.trashPath.startsWith(path.join(t.dir, '.trash') + path.sep), r.trashPath);
    assert.ok(existsSync(r.trashPath));
    assert.equal(existsSync(file('resume-me')), false);
    assert.doesNotMatch(readIndex(t.dir), /\*\*resume-me\*\*/);
    assert.ok(!(await labels(t.api, t.folder)).includes('resume-me'));
    // Consumed, and no other checkpoint left: the status bar has nothing to show.
    assert.equal(t.api.statusBar.state.visible, false);
  });

  it('Undo puts the consumed file and its bullet back', async () => {
    const restored = await vscode.commands.executeCommand<string>('checkpoint.undo');
    assert.equal(restored, file('resume-me'));
    assert.ok(existsSync(file('resume-me')));
    assert.match(readIndex(t.dir), /^- \*\*resume-me\*\* \(.*\) — Where I was$/m);
    assert.ok((await labels(t.api, t.folder)).includes('resume-me'));
    assert.equal(t.api.statusBar.state.name, 'resume-me', 'back in the status bar');
  });

  it('keeps the checkpoint when checkpoint.afterResume is "keep"', async () => {
    await setSetting(t.folder, 'afterResume', 'keep');
    const r = await resume({ name: 'resume-me', folder: t.folder.uri.fsPath });
    assert.ok(r);
    assert.equal(r.consumed, false);
    assert.equal(r.trashPath, undefined);
    assert.ok(existsSync(file('resume-me')));
    assert.match(readIndex(t.dir), /\*\*resume-me\*\*/);
  });

  it('copies a resume prompt built by the core', async () => {
    const text = await vscode.commands.executeCommand<string>('checkpoint.copyResumePrompt', { name: 'resume-me', folder: t.folder.uri.fsPath });
    assert.match(text, /^Resume the work saved in checkpoint "resume-me"/);
    assert.match(text, /Do not retry these failed approaches: Tried X — broke Y/);
  });

  it('deletes to trash with the index bullet, and Undo restores it', async () => {
    const trashPath = await vscode.commands.executeCommand<string>('checkpoint.delete', { name: 'resume-me', folder: t.folder.uri.fsPath });
    assert.ok(trashPath && existsSync(trashPath));
    assert.ok(trashPath.startsWith(path.join(t.dir, '.trash') + path.sep));
    assert.equal(existsSync(file('resume-me')), false);
    assert.doesNotMatch(readIndex(t.dir), /\*\*resume-me\*\*/);
    assert.equal(t.api.statusBar.state.visible, false, 'deleting the active checkpoint hides the status bar item');
    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), file('resume-me'));
    assert.match(readIndex(t.dir), /\*\*resume-me\*\*/);
  });

  it('deletes all checkpoints of the folder (confirmation skipped) and removes the index section', async () => {
    await save(t.folder, { name: 'second', leftOff: 'Another' });
    const count = await vscode.commands.executeCommand<number>('checkpoint.deleteAll', { folder: t.folder.uri.fsPath, confirm: false });
    assert.equal(count, 2);
    assert.equal(existsSync(file('resume-me')), false);
    assert.equal(existsSync(file('second')), false);
    assert.doesNotMatch(readIndex(t.dir), /## (?:Active )?Checkpoints/);
    assert.deepEqual(await labels(t.api, t.folder), []);
  });

  it('reports a missing checkpoint without writing anything', async () => {
    assert.equal(await resume({ name: 'never-saved', folder: t.folder.uri.fsPath }), undefined);
  });
});
