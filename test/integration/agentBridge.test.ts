import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { atomicWrite, checkpointText, runCliSync } from '../support/fixtures';
import { inTerminal, save, setSetting, suite } from './helpers';

suite('Claude Code and the command line', {}, (t) => {
  const settingsFile = (): string => path.join(t.cwd, '.claude', 'settings.json');
  const skillFile = (): string => path.join(t.cwd, '.claude', 'skills', 'checkpoint', 'SKILL.md');

  it('puts `checkpoint` on the integrated terminals\' PATH, running this extension\'s CLI', async function () {
    if (process.platform === 'win32') this.skip();
    const launchers = await t.api.terminalCommand.launchers();
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

  /** The hook commands of a settings file, by event. */
  const hookCommands = (file: string): Record<string, string[]> => {
    const data = JSON.parse(readFileSync(file, 'utf8').replace(/^\s*\/\/.*$/gm, '')) as { hooks?: Record<string, { hooks: { command: string }[] }[]> };
    return Object.fromEntries(Object.entries(data.hooks ?? {}).map(([ev, groups]) => [ev, groups.flatMap((g) => g.hooks.map((h) => h.command))]));
  };
  /** SessionStart's JSON as Claude Code sends it on stdin, in a file. */
  const sessionStartInput = (): string => {
    const file = path.join(t.temp('hook-input'), 'session-start.json');
    writeFileSync(file, JSON.stringify({ session_id: 's1', transcript_path: path.join(t.cwd, 'none.jsonl'), cwd: t.cwd, hook_event_name: 'SessionStart', source: 'startup', model: 'm' }));
    return file;
  };
  const contextOf = (stdout: string): string => (JSON.parse(stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext;

  it('Connect merges the hooks into a settings file with comments and other hooks; again changes nothing; Disconnect restores it', async () => {
    mkdirSync(path.dirname(settingsFile()), { recursive: true });
    const original = '{\n  // team settings\n  "model": "sonnet",\n  "hooks": {\n    "PreCompact": [{ "hooks": [{ "type": "command", "command": "./backup.sh" }] }]\n  }\n}\n';
    writeFileSync(settingsFile(), original);
    const r = await vscode.commands.executeCommand<{ added: unknown[]; skillWritten: boolean }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(r.added.length, 3);
    assert.equal(r.skillWritten, true);
    const text = readFileSync(settingsFile(), 'utf8');
    assert.ok(text.startsWith('{\n  // team settings\n  "model": "sonnet",'));
    // The workspace's file may be committed: the hooks run `checkpoint` from PATH and name no path of this machine.
    assert.deepEqual(hookCommands(settingsFile()), { PreCompact: ['./backup.sh', 'checkpoint hook pre-compact'], SessionStart: ['checkpoint hook session-start'], PostCompact: ['checkpoint hook post-compact'] });
    assert.ok(!text.includes((await t.api.terminalCommand.launchers()).dir), text);
    assert.match(readFileSync(skillFile(), 'utf8'), /^---\nname: checkpoint\n/);

    const again = await vscode.commands.executeCommand<{ added: unknown[] }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(again.added.length, 0);
    assert.equal(readFileSync(settingsFile(), 'utf8'), text);

    // The hook command Connect wrote, run as Claude Code started in an integrated terminal runs it (that PATH):
    // the pending checkpoint comes back as context.
    const saved = await save(t.folder, { name: 'hooked', leftOff: 'Wiring the hook' });
    assert.ok(saved);
    const [command] = hookCommands(settingsFile()).SessionStart;
    const out = path.join(t.temp('hook-output'), 'out.json');
    await inTerminal(`cd '${t.cwd}' && CHECKPOINT_MEMORY_DIR='${t.dir}' ${command} < '${sessionStartInput()}' > '${out}' 2>&1`);
    const context = contextOf(readFileSync(out, 'utf8'));
    assert.match(context, /"hooked"/);
    assert.match(context, /Left off: Wiring the hook/);

    const off = await vscode.commands.executeCommand<{ removedHooks: number; skillRemoved: boolean }>('checkpoint.disconnectClaude', { scope: 'workspace' });
    assert.deepEqual([off.removedHooks, off.skillRemoved], [3, true]);
    assert.equal(readFileSync(settingsFile(), 'utf8'), original);
    assert.equal(existsSync(skillFile()), false);
    rmSync(settingsFile());
  });

  it('Connect with no settings file creates it with only the hooks; a workspace connected with a launcher path gets `checkpoint` instead', async () => {
    const r = await vscode.commands.executeCommand<{ added: unknown[] }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(r.added.length, 3);
    const created = JSON.parse(readFileSync(settingsFile(), 'utf8')) as Record<string, unknown>;
    assert.deepEqual(Object.keys(created), ['hooks']);
    assert.deepEqual(hookCommands(settingsFile()), { SessionStart: ['checkpoint hook session-start'], PreCompact: ['checkpoint hook pre-compact'], PostCompact: ['checkpoint hook post-compact'] });
    // What an earlier version wrote: the launcher's full path. Connect points its own entries at `checkpoint`.
    const launcher = (await t.api.terminalCommand.launchers()).posix;
    writeFileSync(settingsFile(), readFileSync(settingsFile(), 'utf8').replace(/"checkpoint hook/g, `"'${launcher}' hook`));
    const again = await vscode.commands.executeCommand<{ added: unknown[] }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
    assert.equal(again.added.length, 3);
    assert.deepEqual(hookCommands(settingsFile()), { SessionStart: ['checkpoint hook session-start'], PreCompact: ['checkpoint hook pre-compact'], PostCompact: ['checkpoint hook post-compact'] });
    const off = await vscode.commands.executeCommand<{ removedHooks: number }>('checkpoint.disconnectClaude', { scope: 'workspace' });
    assert.equal(off.removedHooks, 3);
    assert.deepEqual(JSON.parse(readFileSync(settingsFile(), 'utf8')), {});
    rmSync(settingsFile());
  });

  it('Connect adds nothing while the Checkpoint plugin is enabled for the folder; a later settings file that disables it counts', async () => {
    mkdirSync(path.dirname(settingsFile()), { recursive: true });
    const enabled = '{\n  "enabledPlugins": { "checkpoint@checkpoint": true }\n}\n';
    writeFileSync(settingsFile(), enabled);
    const local = path.join(t.cwd, '.claude', 'settings.local.json');
    try {
      // The plugin brings the same hooks and skill: nothing is written twice.
      const r = await vscode.commands.executeCommand<{ settingsChanged: boolean; added: unknown[]; skillWritten: boolean }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
      assert.deepEqual([r.settingsChanged, r.added.length, r.skillWritten], [false, 0, false]);
      assert.equal(readFileSync(settingsFile(), 'utf8'), enabled);
      assert.equal(existsSync(skillFile()), false);
      // Claude Code reads settings.local.json after settings.json: disabled there, the plugin brings nothing.
      writeFileSync(local, '{ "enabledPlugins": { "checkpoint@checkpoint": false } }\n');
      const connected = await vscode.commands.executeCommand<{ added: unknown[] }>('checkpoint.connectClaude', { scope: 'workspace', confirm: true });
      assert.equal(connected.added.length, 3);
      assert.deepEqual(hookCommands(settingsFile()), { SessionStart: ['checkpoint hook session-start'], PreCompact: ['checkpoint hook pre-compact'], PostCompact: ['checkpoint hook post-compact'] });
      const off = await vscode.commands.executeCommand<{ removedHooks: number }>('checkpoint.disconnectClaude', { scope: 'workspace' });
      assert.equal(off.removedHooks, 3);
    } finally {
      rmSync(settingsFile(), { force: true });
      rmSync(local, { force: true });
    }
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

  it('Connect to the user settings (plain JSON, another SessionStart hook): the launcher\'s full path, which runs from any PATH; Disconnect restores the file', async function () {
    if (process.platform === 'win32') this.skip();
    const claudeDir = process.env.CLAUDE_CONFIG_DIR;
    assert.ok(claudeDir, 'the harness points CLAUDE_CONFIG_DIR at a temp folder');
    const userSettings = path.join(claudeDir, 'settings.json');
    const original = `${JSON.stringify({ model: 'opus', hooks: { SessionStart: [{ matcher: 'startup', hooks: [{ type: 'command', command: 'echo hello' }] }] } }, null, 2)}\n`;
    writeFileSync(userSettings, original);
    await vscode.commands.executeCommand('checkpoint.connectClaude', { scope: 'user', confirm: true, sessionEnd: true });
    const launcher = (await t.api.terminalCommand.launchers()).posix;
    const hooks = hookCommands(userSettings);
    assert.deepEqual(Object.keys(hooks), ['SessionStart', 'PreCompact', 'PostCompact', 'SessionEnd']);
    assert.deepEqual(hooks.SessionStart, ['echo hello', `${await t.api.terminalCommand.program()} hook session-start`]);
    assert.ok(hooks.SessionStart[1].replace(/^'/, '').startsWith(launcher), hooks.SessionStart[1]);
    assert.equal((JSON.parse(readFileSync(userSettings, 'utf8')) as { model: string }).model, 'opus');
    // This machine's own file: Claude Code started from a terminal without `checkpoint` on PATH still runs it.
    await save(t.folder, { name: 'user-hooked', leftOff: 'From the user settings' });
    const stdout = execFileSync('/bin/sh', ['-c', hooks.SessionStart[1]], {
      cwd: t.cwd,
      input: readFileSync(sessionStartInput()),
      env: { PATH: '/usr/bin:/bin', HOME: process.env.HOME, CHECKPOINT_MEMORY_DIR: t.dir },
      encoding: 'utf8',
    });
    assert.match(contextOf(stdout), /"user-hooked"/);
    const off = await vscode.commands.executeCommand<{ removedHooks: number }>('checkpoint.disconnectClaude', { scope: 'user' });
    assert.equal(off.removedHooks, 4);
    assert.equal(readFileSync(userSettings, 'utf8'), original);
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

  it('the start-up offer names the first pending checkpoint and lists up to two more', async () => {
    for (const name of ['agent-one', 'agent-two', 'agent-three', 'agent-four']) {
      const r = runCliSync(['save', name, '--left-off', `left off in ${name}`, '--dir', t.dir, '--cwd', t.cwd], { env: process.env });
      assert.equal(r.code, 0, r.err);
    }
    const before = t.api.resumeOffer.shown.length;
    await t.api.resumeOffer.run();
    assert.equal(t.api.resumeOffer.shown.length, before + 1);
    const shown = t.api.resumeOffer.shown[before];
    assert.match(shown, /^Resume 'agent-\w+'/);
    const also = /\(also pending: (.*)\)$/.exec(shown)?.[1] ?? '';
    assert.equal(also.match(/'[^']+'/g)?.length, 2, `two more by name: ${shown}`);
    assert.match(also, / and \d+ more$/, 'the rest counted');
  });

  it("the start-up offer names the current branch's pending checkpoint before a newer one of another, unmerged branch, with its branch", async () => {
    const current = await t.api.model.folder(t.folder).currentBranch();
    assert.ok(current, 'the workspace is on a branch');
    // Only the two below are pending.
    assert.equal(runCliSync(['delete', '--all', '--dir', t.dir, '--cwd', t.cwd], { env: process.env }).code, 0);
    const here = runCliSync(['save', 'offer-here', '--left-off', 'on this branch', '--dir', t.dir, '--cwd', t.cwd], { env: process.env });
    assert.equal(here.code, 0, here.err);
    // Saved later, on a branch this repository does not have.
    atomicWrite(path.join(t.dir, 'checkpoint-offer-elsewhere.md'), checkpointText('offer-elsewhere', 'on another branch', { branch: 'feature/not-here', saved: new Date(Date.now() + 1000) }));
    const before = t.api.resumeOffer.shown.length;
    await t.api.resumeOffer.run();
    const shown = t.api.resumeOffer.shown[before];
    assert.match(shown, new RegExp(`^Resume 'offer-here'( in \\S+)? — saved just now on ${current.replace(/[/.]/g, '\\$&')} \\(also pending: `), shown);
    assert.ok(shown.endsWith(`(also pending: 'offer-elsewhere' on feature/not-here, another branch than ${current})`), shown);
  });

  return {
    teardown() {
      rmSync(settingsFile(), { force: true });
      rmSync(path.join(t.cwd, '.claude', 'skills'), { recursive: true, force: true });
    },
  };
});
