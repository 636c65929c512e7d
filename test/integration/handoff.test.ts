import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { git } from '../support/fixtures';
import { inWorkbench, save, suite } from './helpers';

const remote = `handoff-it-${process.pid}`;

// Push to Remote and Pull from Remote: a checkpoint carried to another clone through the repository's remote.
suite('Push to Remote, Pull from Remote', { workbench: true }, (t) => {
  it('pushes a checkpoint to the remote, and a pull brings it back once it is gone here', async () => {
    const bare = t.temp('remote');
    git(bare, 'init', '-q', '--bare');
    git(t.cwd, 'remote', 'add', remote, bare);
    const name = 'handoff-one';
    const file = await save(t.folder, { name, leftOff: 'Carried to the other machine' });
    assert.ok(file);

    const pushed = await vscode.commands.executeCommand<string[] | undefined>('checkpoint.push', { folder: t.cwd, name, remote });
    assert.deepEqual(pushed, [name]);
    const told = await inWorkbench({ action: 'notification', text: 'Pushed 1 checkpoint(s)' });
    assert.match(told.text, new RegExp(`^Pushed 1 checkpoint\\(s\\) to ${remote}\\. On another machine: Checkpoint: Pull from Remote\\.$`));
    assert.match(git(bare, 'for-each-ref', '--format=%(refname)'), new RegExp(`/${name}$`, 'm'), 'the remote has a ref for it');

    await vscode.commands.executeCommand('checkpoint.delete', { folder: t.cwd, name });
    assert.equal(existsSync(file), false);
    const pulled = await vscode.commands.executeCommand<string[] | undefined>('checkpoint.pull', { folder: t.cwd, remote });
    assert.deepEqual(pulled, [name]);
    assert.match(readFileSync(file, 'utf8'), /^## Left Off\nCarried to the other machine$/m);
    assert.match(readFileSync(path.join(t.dir, 'MEMORY.md'), 'utf8'), new RegExp(`^- \\*\\*${name}\\*\\* `, 'm'));
    const again = await vscode.commands.executeCommand<string[] | undefined>('checkpoint.pull', { folder: t.cwd, remote });
    assert.deepEqual(again, [], 'nothing new the second time');
    assert.equal((await inWorkbench({ action: 'notification', text: `Nothing new on ${remote}` })).count, 1);
  });

  return {
    teardown: () => {
      if (git(t.cwd, 'remote').split('\n').includes(remote)) git(t.cwd, 'remote', 'remove', remote);
    },
  };
});
