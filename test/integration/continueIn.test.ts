import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { ResumeResult } from '../../src/core/store';
import { claudeCode } from '../support/claudeCode';
import { atomicWrite, checkpointText } from '../support/fixtures';
import { EVENT_TIMEOUT, inWorkbench, save, skipBefore, suite } from './helpers';

/** The terminal shell integration event, stable since VS Code 1.93 (after the engines floor, 1.90). */
interface ShellExecutionApi {
  onDidStartTerminalShellExecution: vscode.Event<{ terminal: vscode.Terminal; execution: { commandLine: { value: string } } }>;
}

const CLAUDE = 'Continue in Claude Code';
const CHAT = 'Continue in Chat';

/** The first event of `event` that satisfies `check`. */
function next<T>(event: vscode.Event<T>, check: (e: T) => boolean, what: string): Promise<T> {
  return new Promise<T>((resolve, reject) => {
    const timer = setTimeout(() => {
      sub.dispose();
      reject(new Error(`Timed out after ${EVENT_TIMEOUT} ms waiting for ${what}`));
    }, EVENT_TIMEOUT);
    const sub = event((e) => {
      if (!check(e)) return;
      clearTimeout(timer);
      sub.dispose();
      resolve(e);
    });
  });
}

suite('Continue in… after a resume', { workbench: true, timeout: 120_000 }, (t) => {
  const resume = (name: string, keep?: boolean): Thenable<ResumeResult | undefined> =>
    vscode.commands.executeCommand<ResumeResult | undefined>('checkpoint.resume', { name, folder: t.folder.uri.fsPath, keep });
  const pathBefore = process.env.PATH;
  const terminals: vscode.Terminal[] = [];

  afterEach(() => {
    process.env.PATH = pathBefore;
  });

  it('one notification: branch warning and failed approaches in its message; no Claude Code without claude on PATH', async () => {
    process.env.PATH = '/usr/bin:/bin'; // this machine's own PATH has no claude
    await save(t.folder, { name: 'cont-one', leftOff: 'Wiring the callback', failed: ['polling — too slow', 'cookies — SameSite'] });
    const r = await resume('cont-one');
    assert.ok(r?.consumed);
    const toast = await inWorkbench({ action: 'notification', text: 'Resumed "cont-one"' });
    // Then what changed in the repository since it was saved, in the same notification.
    assert.match(toast.text, /^Resumed "cont-one": Wiring the callback\. Moved to trash\. Previously failed: polling — too slow; cookies — SameSite\. Since saved: (fresh|moved on)\b.*\.$/);
    assert.equal((await inWorkbench({ action: 'count', text: 'Since saved:' })).count, 1, 'no separate toast for what changed since');
    assert.equal(toast.count, 1, 'one notification');
    assert.equal((await inWorkbench({ action: 'count', text: 'Previously failed' })).count, 1, 'no separate toast per failed approach');
    assert.ok(!toast.buttons?.includes(CLAUDE), `offered: ${toast.buttons?.join(', ')}`);
    assert.ok(toast.buttons?.includes('Copy Resume Prompt'));
    assert.ok(toast.buttons?.includes('Undo'));
    const models = await vscode.lm.selectChatModels();
    if (models.length === 0) assert.ok(!toast.buttons?.includes(CHAT), 'no chat model here: Continue in Chat would do nothing');
    await inWorkbench({ action: 'notification', text: 'Resumed "cont-one"', button: 'Undo' });
  });

  it('saved on another branch and resumed here: the branch is in the same notification, Switch not offered again', async () => {
    process.env.PATH = '/usr/bin:/bin';
    const text = checkpointText('cont-branch', 'Elsewhere', { branch: 'feature/elsewhere', failed: ['x — y'] });
    atomicWrite(path.join(t.dir, 'checkpoint-cont-branch.md'), text);
    const r = await vscode.commands.executeCommand<ResumeResult | undefined>('checkpoint.resume', { name: 'cont-branch', folder: t.folder.uri.fsPath, keep: true, onOtherBranch: 'here' });
    assert.equal(r?.branchMismatch, true);
    const toast = await inWorkbench({ action: 'notification', text: 'Resumed "cont-branch"' });
    assert.match(
      toast.text,
      /^Resumed "cont-branch": Elsewhere\. Saved on feature\/elsewhere; you are on main\. Previously failed: x — y\. Since saved: moved on — feature\/elsewhere is no longer a branch here \(deleted, or never in this clone\); cannot tell: it was saved without a HEAD commit, so commits since cannot be told; it has no code snapshot, so files changed since cannot be told\.$/,
    );
    assert.equal((await inWorkbench({ action: 'count', text: 'feature/elsewhere' })).count, 1, 'no separate branch toast');
    assert.ok(!toast.buttons?.some((b) => b.startsWith('Switch to')), `answered before the resume: ${toast.buttons?.join(', ')}`);
    assert.ok(!toast.buttons?.includes('Undo'), 'kept: nothing to undo');
  });

  it('Continue in Claude Code (the real client on PATH): a terminal in the folder runs claude \'continue <name>\'', async function () {
    skipBefore(this, '1.93', 'terminal shell integration events (window.onDidStartTerminalShellExecution)');
    const { bin } = await claudeCode();
    process.env.PATH = `${path.dirname(bin)}${path.delimiter}${pathBefore ?? ''}`;
    const name = 'cont-claude';
    await save(t.folder, { name, leftOff: 'Half done' });
    const r = await resume(name, true);
    assert.equal(r?.consumed, false);
    const opened = next(vscode.window.onDidOpenTerminal, (term) => term.name === 'Claude Code', 'the Claude Code terminal');
    const toast = await inWorkbench({ action: 'notification', text: `Resumed "${name}"`, button: CLAUDE });
    assert.ok(toast.buttons?.includes(CLAUDE), `offered: ${toast.buttons?.join(', ')}`);
    const terminal = await opened;
    terminals.push(terminal);
    const cwd = (terminal.creationOptions as vscode.TerminalOptions).cwd;
    assert.equal(cwd instanceof vscode.Uri ? cwd.fsPath : cwd, t.cwd);
    const { onDidStartTerminalShellExecution } = vscode.window as unknown as ShellExecutionApi;
    const started = await next(onDidStartTerminalShellExecution, (e) => e.terminal === terminal, 'the command in the terminal');
    assert.equal(started.execution.commandLine.value, `claude 'continue cont-claude'`);
  });

  it('Continue in Chat (where a chat model is available): the chat opens with the resume prompt in its input', async function () {
    if ((await vscode.lm.selectChatModels()).length === 0) {
      if (this.test) this.test.title += ' (skipped: no chat model in this VS Code: code-server has no Copilot)';
      return this.skip();
    }
    await save(t.folder, { name: 'cont-chat', leftOff: 'Ready for chat' });
    await resume('cont-chat', true);
    await inWorkbench({ action: 'notification', text: 'Resumed "cont-chat"', button: CHAT });
    const input = await inWorkbench({ action: 'text', selector: '.interactive-input-part .monaco-editor .view-lines', text: 'cont-chat' });
    assert.match(input.text, /Resume the work saved in checkpoint "cont-chat"/);
  });

  return {
    teardown: () => {
      for (const term of terminals) term.dispose();
    },
  };
});
