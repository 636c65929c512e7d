import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { atomicWrite, checkpointText, runCliSync } from '../support/fixtures';
import { save, setSetting, suite, waitFor } from './helpers';

/** Runs a shell command line in an integrated terminal (the PATH VS Code gives terminals) and resolves when it exits. */
async function inTerminal(commandLine: string): Promise<void> {
  const terminal = vscode.window.createTerminal({ name: 'checkpoint test', shellPath: '/bin/sh', shellArgs: ['-c', commandLine] });
  let closed = false;
  const sub = vscode.window.onDidCloseTerminal((t) => {
    if (t === terminal) closed = true;
  });
  try {
    await waitFor(vscode.window.onDidCloseTerminal, () => closed, 'the terminal to exit', 30_000);
  } finally {
    sub.dispose();
  }
}

suite('Claude Code and the command line', {}, (t) => {
  const settingsFile = (): string => path.join(t.cwd, '.claude', 'settings.json');
  const skillFile = (): string => path.join(t.cwd, '.claude', 'skills', 'checkpoint', 'SKILL.md');

  it('puts `checkpoint` on the integrated terminals\' PATH, running this extension\'s CLI', async function () {
    if (process.platform === 'win32') this.skip();
    const launchers = await t.api.commandLine.launchers();
    const out = path.join(t.temp('terminal'), 'out.txt');
    await inTerminal(`cd '${t.cwd}' && { command -v checkpoint; checkpoint --version; checkpoint dir; } > '${out}' 2>&1`);
    const [where, version, memory] = readFileSync(out, 'utf8').trim().split('\n');
    assert.equal(where, launchers.posix);
    assert.match(version, /^\d+\.\d+\.\d+/);
    assert.ok(path.isAbsolute(memory), memory);
  });

  it('Install Command Line links the launcher into the chosen folder', async function () {
    if (process.platform === 'win32') this.skip();
    const bin = t.temp('bin');
    const installed = await vscode.commands.executeCommand<string>('checkpoint.installCommandLine', { folder: bin });
    assert.equal(installed, path.join(bin, 'checkpoint'));
    const version = execFileSync('/bin/sh', ['-c', 'checkpoint --version'], { env: { PATH: bin, HOME: process.env.HOME }, encoding: 'utf8' });
    assert.match(version, /^\d+\.\d+\.\d+/);
  });

  it('Connect merges the hooks into a settings file with comments and other hooks; again changes nothing; Disconnect restores it', async () => {
    mkdirSync(path.dirname(settingsFile()), { recursive: true });
    const original = '{\n  // team settings\n  "model": "sonnet",\n  "hooks": {\n    "PreCompact": [{ "hooks": [{ "type": "command", "command": "./backup.sh" }] }]\n  }\n}\n';
    writeFileSync(settingsFile(), original);
    const r = await vscode.commands.executeCommand<{ added: unknown[]; skillWritten: boolean }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(r.added.length, 2);
    assert.equal(r.skillWritten, true);
    const text = readFileSync(settingsFile(), 'utf8');
    assert.ok(text.startsWith('{\n  // team settings\n  "model": "sonnet",'));
    assert.ok(text.includes('"command": "./backup.sh"'));
    const program = await t.api.commandLine.program();
    assert.ok(text.includes(JSON.stringify(`${program} hook session-start`)), text);
    assert.ok(text.includes(JSON.stringify(`${program} hook pre-compact`)));
    assert.match(readFileSync(skillFile(), 'utf8'), /^---\nname: checkpoint\n/);

    const again = await vscode.commands.executeCommand<{ added: unknown[] }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(again.added.length, 0);
    assert.equal(readFileSync(settingsFile(), 'utf8'), text);

    // The hook command Connect wrote, run as Claude Code runs it: the pending checkpoint comes back as context.
    const saved = await save(t.folder, { name: 'hooked', leftOff: 'Wiring the hook' });
    assert.ok(saved);
    const command = `${program} hook session-start`;
    const stdout = execFileSync('/bin/sh', ['-c', command], {
      cwd: t.cwd,
      input: JSON.stringify({ session_id: 's1', cwd: t.cwd, hook_event_name: 'SessionStart', source: 'startup' }),
      env: { ...process.env, CHECKPOINT_MEMORY_DIR: t.dir },
      encoding: 'utf8',
    });
    const context = (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;
    assert.match(context, /"hooked"/);
    assert.match(context, /Left off: Wiring the hook/);

    const off = await vscode.commands.executeCommand<{ removedHooks: number; skillRemoved: boolean }>('checkpoint.disconnectClaude', { scope: 'workspace' });
    assert.deepEqual([off.removedHooks, off.skillRemoved], [2, true]);
    assert.equal(readFileSync(settingsFile(), 'utf8'), original);
    assert.equal(existsSync(skillFile()), false);
  });

  it('Connect leaves a settings file that is not valid JSON untouched (and writes nothing else)', async () => {
    mkdirSync(path.dirname(settingsFile()), { recursive: true });
    writeFileSync(settingsFile(), '{ "hooks": { ');
    const r = await vscode.commands.executeCommand('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(r, undefined);
    assert.equal(readFileSync(settingsFile(), 'utf8'), '{ "hooks": { ');
    assert.equal(existsSync(skillFile()), false);
    rmSync(settingsFile());
  });

  it('Connect to the user settings: Claude Code\'s configuration folder', async () => {
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(claudeDir, 'the harness points CLAUDE_CONFIG_DIR at a temp folder');
    const userSettings = path.join(claudeDir, 'settings.json');
    await vscode.commands.executeCommand('checkpoint.connectClaude', { scope: 'user', confirm: true, sessionEnd: true });
    const data = JSON.parse(readFileSync(userSettings, 'utf8')) as { hooks: Record<string, unknown> };
    assert.deepEqual(Object.keys(data.hooks), ['SessionStart', 'PreCompact', 'SessionEnd']);
    await vscode.commands.executeCommand('checkpoint.disconnectClaude', { scope: 'user' });
    assert.equal(readFileSync(userSettings, 'utf8').trim(), '{}');
    rmSync(userSettings);
  });

  it('offers once to resume a checkpoint saved outside this window, never one of its own saves', async () => {
    // This window's own save: not offered.
    await save(t.folder, { name: 'own-save', leftOff: 'mine' });
    const before = t.api.resumeOffer.shown.length;
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before);

    // Saved by an agent (the CLI) while the window was open: offered, once.
    runCliSync(['save', 'from-agent', '--left-off', 'the agent stopped here', '--dir', t.dir, '--cwd', t.cwd], { env: process.env });
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before + 1);
    assert.match(t.api.resumeOffer.shown[before], /^Resume 'from-agent'( in \S+)? — saved just now on \S+/);
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before + 1, 'once per checkpoint');

    // The setting turns it off.
    atomicWrite(path.join(t.dir, 'checkpoint-synced.md'), checkpointText('synced', 'from another machine', { saved: new Date(Date.now() + 1000) }));
    await setSetting(t.folder, 'offerResumeOnOpen', false);
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before + 1);
    await setSetting(t.folder, 'offerResumeOnOpen', undefined);
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before + 2);
    assert.match(t.api.resumeOffer.shown[before + 1], /^Resume 'synced'/);
  });

  return {
    teardown() {
      rmSync(settingsFile(), { force: true });
      rmSync(path.join(t.cwd, '.claude', 'skills'), { recursive: true, force: true });
    },
  };
});
