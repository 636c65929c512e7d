import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { SaveAndCommitOutcome } from '../../src/editor/commands/saveAndCommitCommand';
import type { ItemNode } from '../../src/editor/views/nodes';
import { git, readIndex } from '../support/fixtures';
import { folderChildren, labels, save, setSetting, suite, waitFor } from './helpers';

/**
 * Runs a command that shows quick inputs and answers them with the workbench's own quick-input commands, one round
 * trip each, until the command settles. A quick-input command sent before the input shows does nothing, so each
 * round must lead to the intended answer from any point it starts at (see the callers). Bounded: a command that
 * never settles fails the test.
 */
async function answer<T>(run: () => Thenable<T>, round: string[]): Promise<T> {
  let settled = false;
  const running = Promise.resolve(run()).finally(() => {
    settled = true;
  });
  for (let i = 0; i < 100 && !settled; i++) {
    for (const id of round) {
      if (settled) break;
      // List navigation on the name box (no list) throws: that answer is for the list only.
      await Promise.resolve(vscode.commands.executeCommand(id)).catch(() => undefined);
    }
  }
  assert.ok(settled, 'the command settled once its inputs were answered');
  return running;
}

const ACCEPT = 'workbench.action.acceptSelectedQuickOpenItem';
const TOGGLE = 'workbench.action.quickPickManyToggle';
const sourcesOf = (file: string): string[] => /^sources: \[(.*)\]$/m.exec(readFileSync(file, 'utf8'))?.[1].split(', ') ?? [];

suite('Checkpoint: Combine… and Save and Commit', {}, (t) => {
  let repo: string;
  let hook = '';

  it('Combine… from the palette: the checked checkpoints of the pick list, then the suggested name; the new one is in the tree and active', async () => {
    await save(t.folder, { name: 'pal-a', leftOff: 'palette a', done: ['shared', 'a1'] });
    await save(t.folder, { name: 'pal-b', leftOff: 'palette b', done: ['b1', 'shared'] });
    await save(t.folder, { name: 'pal-c', leftOff: 'palette c', done: ['c1'] });
    // Each round checks the first three items (the checkpoints, newest first) and accepts: Accept takes two or more.
    // A round that starts once the list is already showing checks at most one item before it accepts; the next
    // full round then leaves at least two checked. The name box takes the suggestion. The trash box is never touched.
    const file = await answer(
      () => vscode.commands.executeCommand<string | undefined>('checkpoint.combine'),
      ['quickInput.first', TOGGLE, 'quickInput.next', TOGGLE, 'quickInput.next', TOGGLE, ACCEPT],
    );
    assert.ok(file, 'the command returned the new checkpoint');
    const sources = sourcesOf(file);
    assert.ok(sources.length >= 2 && sources.every((s) => ['pal-a', 'pal-b', 'pal-c'].includes(s)), sources.join(', '));
    assert.equal(path.dirname(file), t.dir);
    assert.match(path.basename(file), /^checkpoint-pal-[abc]-combined\.md$/);
    const name = path.basename(file).replace(/^checkpoint-|\.md$/g, '');
    // Left Off: where each source left off, newest first, under its name.
    const leftOff = ['pal-c', 'pal-b', 'pal-a'].filter((n) => sources.includes(n)).map((n) => `${n}: ${n.replace('pal-', 'palette ')}\\n`);
    assert.match(readFileSync(file, 'utf8'), new RegExp(`## Left Off\\n${leftOff.join('')}## Done`));
    assert.match(readFileSync(file, 'utf8'), /## Sources\n\| Name \| Saved \| Branch \| Plan step \|/);
    assert.ok((await labels(t.api, t.folder)).includes(name), 'the tree shows it (the write path updated the listing)');
    assert.equal(t.api.model.folder(t.folder).active()?.name, name, 'it is the active checkpoint');
    await waitFor(t.api.statusBar.onDidChangeState, () => t.api.statusBar.state.name === name, 'the status bar to show the combined checkpoint');
    for (const n of ['pal-a', 'pal-b', 'pal-c']) assert.ok(existsSync(path.join(t.dir, `checkpoint-${n}.md`)), `${n} stays: the trash box was not checked`);
  });

  it('Combine… from a multi-selection in the tree: the selected checkpoints come checked; sources stay', async () => {
    await save(t.folder, { name: 'it-one', leftOff: 'one left off', done: ['x'] });
    await save(t.folder, { name: 'it-two', leftOff: 'two left off', done: ['x', 'y'] });
    const nodes = (await folderChildren(t.api, t.folder)).filter((n): n is ItemNode => n.kind === 'checkpoint' && ['it-one', 'it-two'].includes(n.summary.name));
    assert.equal(nodes.length, 2);
    // VS Code passes the clicked node and the whole selection. Accepting the list (the two selected) and the name
    // box (its suggestion) is all a person does.
    const file = await answer(() => vscode.commands.executeCommand<string | undefined>('checkpoint.combine', nodes[0], nodes), [ACCEPT]);
    assert.ok(file, 'the command completed with a file');
    assert.deepEqual(sourcesOf(file).sort(), ['it-one', 'it-two']);
    assert.match(readFileSync(file, 'utf8'), /## Left Off\nit-two: two left off\nit-one: one left off\n## Done This Session\n- x\n- y\n/);
    assert.ok(existsSync(path.join(t.dir, 'checkpoint-it-one.md')) && existsSync(path.join(t.dir, 'checkpoint-it-two.md')), 'sources stay unless the trash box is checked');
    const name = path.basename(file).replace(/^checkpoint-|\.md$/g, '');
    assert.ok((await labels(t.api, t.folder)).includes(name));
  });

  it('Combine with options and trashSources: the sources go to the trash, their bullets and tree items too; an existing name is trashed first', async () => {
    await save(t.folder, { name: 'it-alpha', leftOff: 'alpha left off', done: ['a1', 'shared'], failed: ['fa'] });
    await save(t.folder, { name: 'it-beta', leftOff: 'beta left off', done: ['shared', 'b1'], failed: ['fb'] });
    await save(t.folder, { name: 'it-combined', leftOff: 'an older it-combined' });
    const file = await vscode.commands.executeCommand<string>('checkpoint.combine', {
      folder: repo,
      name: 'it-combined',
      sources: ['it-alpha', 'it-beta'],
      trashSources: true,
    });
    assert.equal(file, path.join(t.dir, 'checkpoint-it-combined.md'));
    const text = readFileSync(file, 'utf8');
    assert.match(text, /^sources: \[it-alpha, it-beta\]$/m);
    // Left Off says where each source left off, newest first, each under its name.
    assert.match(text, /## Left Off\nit-beta: beta left off\nit-alpha: alpha left off\n## Done This Session\n- shared\n- b1\n- a1\n## Failed Approaches\n- fb\n- fa\n/);
    assert.ok(!existsSync(path.join(t.dir, 'checkpoint-it-alpha.md')) && !existsSync(path.join(t.dir, 'checkpoint-it-beta.md')));
    const trash = path.join(t.dir, '.trash');
    const inTrash = readdirSync(trash).flatMap((day) => readdirSync(path.join(trash, day)));
    for (const n of ['checkpoint-it-alpha.md', 'checkpoint-it-beta.md', 'checkpoint-it-combined.md']) assert.ok(inTrash.includes(n), `${n} in the trash: ${inTrash.join(', ')}`);
    assert.match(readIndex(t.dir), /\*\*it-combined\*\*.*beta left off/);
    assert.doesNotMatch(readIndex(t.dir), /\*\*it-alpha\*\*|\*\*it-beta\*\*/);
    const shown = await labels(t.api, t.folder);
    assert.ok(shown.includes('it-combined'), shown.join(', '));
    assert.ok(!shown.includes('it-alpha') && !shown.includes('it-beta'), shown.join(', '));
    // Undo puts back the it-combined that was replaced, as after an overwrite.
    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), file);
    assert.match(readFileSync(file, 'utf8'), /## Left Off\nan older it-combined\n/);
    assert.match(readIndex(t.dir), /\*\*it-combined\*\*.*an older it-combined/);
  });

  it('Combine with an unknown name: an error, nothing written', async () => {
    const before = readIndex(t.dir);
    const file = await vscode.commands.executeCommand<string | undefined>('checkpoint.combine', { folder: repo, name: 'nope', sources: ['it-combined', 'missing'] });
    assert.equal(file, undefined);
    assert.ok(!existsSync(path.join(t.dir, 'checkpoint-nope.md')));
    assert.equal(readIndex(t.dir), before);
  });

  it('Save and Commit: a commit in the repository with the checkpoint message, likely secrets left out', async () => {
    writeFileSync(path.join(repo, 'it-commit.txt'), 'work\n');
    writeFileSync(path.join(repo, '.env.it'), 'TOKEN=1\n');
    try {
      const head = git(repo, 'rev-parse', 'HEAD');
      const outcome = await vscode.commands.executeCommand<SaveAndCommitOutcome>('checkpoint.saveAndCommit', {
        folder: repo,
        name: 'it-commit',
        leftOff: '-n "Quoted" and more\nsecond line',
        done: ['committed from the editor'],
      });
      assert.equal(outcome.error, undefined, outcome.error);
      assert.equal(outcome.path, path.join(t.dir, 'checkpoint-it-commit.md'));
      assert.equal(git(repo, 'rev-parse', 'HEAD~1'), head, 'one new commit');
      assert.equal(git(repo, 'log', '-1', '--format=%B'), 'chore(it-commit): -n "Quoted" and more\n\n- committed from the editor');
      assert.ok(git(repo, 'show', '--name-only', '--format=', 'HEAD').split('\n').includes('it-commit.txt'));
      assert.deepEqual(outcome.commit?.leftOut, ['.env.it']);
      assert.match(git(repo, 'status', '--porcelain'), /^\?\? \.env\.it$/m);
      assert.match(outcome.message, /^Committed [0-9a-f]{7}: chore\(it-commit\).*Left out as likely secrets: \.env\.it\./);
      assert.ok((await labels(t.api, t.folder)).includes('it-commit'));
    } finally {
      rmSync(path.join(repo, '.env.it'), { force: true });
    }
  });

  it('Save and Commit refused by a failing pre-commit hook: its output shown, the checkpoint saved, nothing committed or staged', async () => {
    writeFileSync(hook, '#!/bin/sh\necho "hook says no: lint errors in it-hooked.txt" >&2\nexit 1\n');
    chmodSync(hook, 0o755);
    writeFileSync(path.join(repo, 'it-hooked.txt'), 'work\n');
    try {
      const head = git(repo, 'rev-parse', 'HEAD');
      const index = git(repo, 'ls-files', '--stage');
      const outcome = await vscode.commands.executeCommand<SaveAndCommitOutcome>('checkpoint.saveAndCommit', { folder: repo, name: 'it-hooked', leftOff: 'hooked' });
      assert.equal(outcome.commit, undefined);
      assert.match(outcome.message, /^Checkpoint "it-hooked" saved, not committed\. .*pre-commit hook failed.*hook says no: lint errors in it-hooked\.txt/);
      assert.ok(existsSync(path.join(t.dir, 'checkpoint-it-hooked.md')));
      assert.match(readIndex(t.dir), /\*\*it-hooked\*\*/);
      assert.equal(git(repo, 'rev-parse', 'HEAD'), head);
      assert.equal(git(repo, 'ls-files', '--stage'), index);
      assert.match(git(repo, 'status', '--porcelain'), /^\?\? it-hooked\.txt$/m);
    } finally {
      rmSync(hook, { force: true });
      rmSync(path.join(repo, 'it-hooked.txt'), { force: true });
    }
  });

  it('Save and Commit with checkpoint.commit.push on: the commit is pushed to the remote (a bare repository)', async () => {
    const bare = t.temp('bare');
    git(bare, 'init', '-q', '--bare');
    git(repo, 'remote', 'add', 'origin', bare);
    await setSetting(t.folder, 'commit.push', true);
    try {
      writeFileSync(path.join(repo, 'it-pushed.txt'), 'work\n');
      const outcome = await vscode.commands.executeCommand<SaveAndCommitOutcome>('checkpoint.saveAndCommit', { folder: repo, name: 'it-pushed', leftOff: 'pushed from the editor' });
      assert.equal(outcome.error, undefined, outcome.error);
      assert.equal(outcome.commit?.pushed, true);
      assert.match(outcome.message, /^Committed [0-9a-f]{7} and pushed: chore\(it-pushed\): pushed from the editor\./);
      const branch = git(repo, 'rev-parse', '--abbrev-ref', 'HEAD');
      assert.equal(git(bare, 'rev-parse', branch), git(repo, 'rev-parse', 'HEAD'));
      assert.equal(git(bare, 'log', '-1', '--format=%s', branch), 'chore(it-pushed): pushed from the editor');
    } finally {
      await setSetting(t.folder, 'commit.push', undefined);
      git(repo, 'remote', 'remove', 'origin');
    }
  });

  return {
    setup() {
      repo = t.cwd;
      hook = path.resolve(repo, git(repo, 'rev-parse', '--git-path', 'hooks/pre-commit'));
    },
    teardown() {
      rmSync(hook, { force: true });
      for (const f of ['it-commit.txt', 'it-pushed.txt']) {
        // Committed by the tests: taken out again in one more commit, so the next suites find the work tree as it was.
        if (existsSync(path.join(repo, f))) {
          git(repo, 'rm', '-q', '--', f);
          git(repo, 'commit', '-q', '-m', 'remove test files');
        }
      }
    },
  };
});
