import * as assert from 'node:assert/strict';
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { currentBranch, readIndex } from '../support/fixtures';
import { escapeRegExp, save, suite } from './helpers';

suite('Checkpoint: Save', {}, (t) => {
  const checkpointFiles = (): string[] => readdirSync(t.dir).filter((f) => f.startsWith('checkpoint-')).sort();

  it('writes the checkpoint file and its MEMORY.md bullet, and makes it the active checkpoint', async () => {
    const branch = currentBranch(t.folder.uri.fsPath);
    const saved = await save(t.folder, {
      name: 'OAuth Callback',
      leftOff: 'Wiring the callback\ntoken refresh still failing',
      done: ['Added provider entry'],
      failed: ['Cookies — blocked by SameSite'],
    });
    assert.equal(saved, path.join(t.dir, 'checkpoint-oauth-callback.md'));
    const text = readFileSync(saved, 'utf8');
    assert.match(text, /^---\nname: oauth-callback\ndescription: Wiring the callback\ntype: checkpoint\n/);
    assert.match(text, new RegExp(`^- \\*\\*Branch:\\*\\* \`${escapeRegExp(branch)}\`$`, 'm'));
    assert.match(text, /^## Left Off\nWiring the callback\ntoken refresh still failing\n## Done This Session\n- Added provider entry\n## Failed Approaches\n- Cookies — blocked by SameSite\n/m);
    assert.match(text, /^## Modified Files$/m);
    assert.match(
      readIndex(t.dir),
      new RegExp(`^## Active Checkpoints\\n- \\*\\*oauth-callback\\*\\* \\(${escapeRegExp(branch)}, [A-Z][a-z]{2} \\d{2}\\) — Wiring the callback$`, 'm'),
    );
    assert.equal(t.api.statusBar.state.visible, true);
    assert.equal(t.api.statusBar.state.name, 'oauth-callback');
    assert.equal(t.api.statusBar.state.savedBranch, branch);
  });

  it('refuses to overwrite an existing checkpoint unless forced', async () => {
    const file = path.join(t.dir, 'checkpoint-oauth-callback.md');
    const before = readFileSync(file, 'utf8');
    assert.equal(await save(t.folder, { name: 'oauth-callback', leftOff: 'Something else' }), undefined);
    assert.equal(readFileSync(file, 'utf8'), before);
    assert.equal(await save(t.folder, { name: 'oauth-callback', leftOff: 'Something else', force: true }), file);
    assert.match(readFileSync(file, 'utf8'), /^## Left Off\nSomething else$/m);
    assert.equal((readIndex(t.dir).match(/\*\*oauth-callback\*\*/g) ?? []).length, 1);
  });

  it('writes nothing for a name that is empty once sanitized, or without Left Off', async () => {
    assert.equal(await save(t.folder, { name: '///', leftOff: 'x' }), undefined);
    assert.equal(await save(t.folder, { name: 'no-left-off', leftOff: '   ' }), undefined);
    assert.deepEqual(checkpointFiles(), ['checkpoint-oauth-callback.md']);
  });

  it("leaves the extension host's shared fs module and process as it found them (the lock patches nothing)", async () => {
    // Every extension of the window shares this process: graceful-fs (under proper-lockfile) would replace
    // fs.close and fs.closeSync, and signal-exit would replace process.emit and add signal handlers.
    const fs = require('node:fs') as typeof import('node:fs');
    const before = { close: fs.close, closeSync: fs.closeSync, emit: process.emit, sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM') };
    assert.ok(await save(t.folder, { name: 'shared-host', leftOff: 'Takes the lock' }));
    assert.ok(await save(t.folder, { name: 'shared-host', leftOff: 'Takes it again', force: true }));
    const after = { close: fs.close, closeSync: fs.closeSync, emit: process.emit, sigint: process.listenerCount('SIGINT'), sigterm: process.listenerCount('SIGTERM') };
    assert.equal(after.close, before.close, 'fs.close is the one Node.js gave');
    assert.equal(after.closeSync, before.closeSync, 'fs.closeSync is the one Node.js gave');
    assert.equal(after.emit, before.emit, 'process.emit is not wrapped');
    assert.deepEqual([after.sigint, after.sigterm], [before.sigint, before.sigterm], 'no signal handlers added');
    assert.equal((process as unknown as Record<string, unknown>).__signal_exit_emitter__, undefined, 'signal-exit never loaded here');
  });

  it('records the plan and its step', async () => {
    const plans = t.temp('save-plans');
    const plan = path.join(plans, 'fix-auth-race.md');
    writeFileSync(plan, '# Plan\n- [x] one\n- [x] two\n- [ ] three\n- [ ] four\n');
    const saved = await save(t.folder, { name: 'with-plan', leftOff: 'Step three', plan });
    assert.ok(saved);
    const text = readFileSync(saved, 'utf8');
    assert.match(text, new RegExp(`^plan: ${escapeRegExp(plan)}\\nplanStep: 3\\nplanSteps: 4$`, 'm'));
    assert.match(text, /\(step 3 of 4\)$/m);
  });
});
