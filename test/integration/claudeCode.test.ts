import * as assert from 'node:assert/strict';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { claudeCode, runClaude } from '../support/claudeCode';
import { currentBranch, runCliSync } from '../support/fixtures';
import { escapeRegExp, inTerminal, save, suite, useMemoryDir } from './helpers';

/** The first install of the client downloads ~370 MB; a run takes seconds. */
const CLAUDE_TIMEOUT = 15 * 60_000;

suite('Claude Code loads a checkpoint saved in the editor', { memoryDir: false, timeout: CLAUDE_TIMEOUT }, (t) => {
  let saved: string | undefined;

  it('the checkpoint saved with Checkpoint: Save is in the MEMORY.md Claude Code loads for the folder', async () => {
    const cwd = t.cwd;
    saved = await save(t.folder, { name: 'editor-save', leftOff: 'Saved from the editor; Claude Code picks it up' });
    assert.ok(saved, 'Checkpoint: Save wrote nothing');
    const home = process.env.HOME;
    assert.ok(home, 'the window has a HOME');
    // The same HOME and CLAUDE_CONFIG_DIR as the extension host (temp folders of the test run).
    const s = await runClaude({ cwd, home, configDir: process.env.CLAUDE_CONFIG_DIR });
    assert.equal(s.memory.length, 1, `Claude Code loaded no auto-memory MEMORY.md; the checkpoint was saved to ${saved}`);
    const bullet = new RegExp(
      `^- \\*\\*editor-save\\*\\* \\(${escapeRegExp(currentBranch(cwd))}, [A-Z][a-z]{2} \\d{1,2}\\) — Saved from the editor; Claude Code picks it up$`,
      'm',
    );
    assert.match(s.memory[0].content, bullet, `the MEMORY.md Claude Code loaded (${s.memory[0].path}):\n${s.memory[0].content}`);
    assert.ok(s.memoryDir && existsSync(path.join(s.memoryDir, 'checkpoint-editor-save.md')), `checkpoint-editor-save.md is not in ${s.memoryDir ?? '(no memory folder)'}`);
  });

  return {
    async setup() {
      // The default memory directory: Claude Code's folder for this repository under the window's CLAUDE_CONFIG_DIR.
      await useMemoryDir(t.api, t.folder, undefined);
      await claudeCode();
    },
    teardown() {
      if (saved) runCliSync(['delete', 'editor-save', '--cwd', t.cwd], { env: process.env });
    },
  };
});

suite('Claude Code loads the pending checkpoint through the hook Connect Claude Code installed', { memoryDir: false, timeout: CLAUDE_TIMEOUT }, (t) => {
  let saved: string | undefined;
  let connected = false;

  it('after Connect Claude Code, Claude Code runs the installed SessionStart hook and gets the pending checkpoint', async () => {
    saved = await save(t.folder, { name: 'hook-pending', leftOff: 'Parser half done; grammar tests next' });
    assert.ok(saved, 'Checkpoint: Save wrote nothing');
    await vscode.commands.executeCommand('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    connected = true;
    const settings = readFileSync(path.join(t.cwd, '.claude', 'settings.json'), 'utf8');
    assert.match(settings, /"checkpoint hook session-start"/, `Connect wrote no SessionStart hook:\n${settings}`);
    const home = process.env.HOME;
    assert.ok(home, 'the window has a HOME');
    // Claude Code started in VS Code's integrated terminal: the PATH that terminal gets (with `checkpoint` on it).
    const pathFile = path.join(t.temp('terminal-path'), 'PATH');
    await inTerminal(`printf %s "$PATH" > '${pathFile}'`);
    const terminalPath = readFileSync(pathFile, 'utf8');
    assert.ok(terminalPath.split(path.delimiter).includes(t.api.terminalCommand.binDir), terminalPath);
    const s = await runClaude({ cwd: t.cwd, home, configDir: process.env.CLAUDE_CONFIG_DIR, env: { PATH: terminalPath } });
    const context = s.hookContext;
    assert.match(context, /hook-pending/, `the SessionStart context Claude Code got names no pending checkpoint:\n${context || '(none)'}\n${s.output}`);
    assert.match(context, /Parser half done; grammar tests next/);
  });

  return {
    async setup() {
      await useMemoryDir(t.api, t.folder, undefined);
      await claudeCode();
    },
    async teardown() {
      if (connected) await vscode.commands.executeCommand('checkpoint.disconnectClaude', { scope: 'workspace' });
      if (saved) runCliSync(['delete', 'hook-pending', '--cwd', t.cwd], { env: process.env });
    },
  };
});
