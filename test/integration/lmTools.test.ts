import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { readIndex } from '../support/fixtures';
import { escapeRegExp, inWorkbench, labels, suite } from './helpers';

const TOOLS = ['checkpoint_save', 'checkpoint_list', 'checkpoint_show', 'checkpoint_resume'];

/** `vscode.lm`'s tool API, stable since VS Code 1.95: @types/vscode is at the engines floor (1.90), which lacks it. */
interface ToolsApi {
  readonly tools: readonly { name: string; description: string; inputSchema: object | undefined }[];
  invokeTool(name: string, options: { input: object; toolInvocationToken: undefined }): Thenable<{ content: unknown[] }>;
}
const lm = vscode.lm as unknown as ToolsApi;
const TextPart = (vscode as unknown as { LanguageModelTextPart: new (value: string) => { value: string } }).LanguageModelTextPart;

/**
 * Invokes a tool as another extension's agent does outside a chat request (no invocation token): VS Code then asks
 * for the writing tools' confirmation in a modal dialog, which the test answers in the page as a person would.
 */
async function invoke(name: string, input: object): Promise<string> {
  const result = await lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return result.content.map((p) => (p instanceof TextPart ? p.value : '')).join('');
}

/** Invokes a writing tool, answers its confirmation dialog with `button`, and returns the dialog's text and the result. */
async function invokeConfirmed(name: string, input: object, button: string): Promise<{ dialog: string; result: Promise<string> }> {
  const result = invoke(name, input);
  result.catch(() => undefined); // awaited by the caller
  const { text } = await inWorkbench({ action: 'dialog', button });
  return { dialog: text, result };
}

suite('Language-model tools (Copilot agent mode)', { workbench: true, since: { version: '1.95', api: 'language-model tools (vscode.lm.registerTool)' } }, (t) => {
  const file = (name: string): string => path.join(t.dir, `checkpoint-${name}.md`);

  it('lists the four checkpoint tools in vscode.lm.tools, with their input schemas', () => {
    const ours = lm.tools.filter((tool) => TOOLS.includes(tool.name));
    assert.deepEqual(ours.map((tool) => tool.name).sort(), [...TOOLS].sort());
    const save = ours.find((tool) => tool.name === 'checkpoint_save')!;
    assert.deepEqual((save.inputSchema as { required?: string[] }).required, ['name', 'leftOff']);
    assert.ok(save.description.includes('Save a checkpoint'));
  });

  it('a bad argument is an error the model reads, and nothing is written', async () => {
    await assert.rejects(invoke('checkpoint_save', { name: 'bad', leftOff: 'x', done: 'not a list' }), /Invalid arguments for checkpoint_save: done/);
    assert.equal(existsSync(file('bad')), false);
  });

  it('saving asks first, naming the checkpoint and the memory folder; Cancel writes nothing', async () => {
    const { dialog, result } = await invokeConfirmed('checkpoint_save', { name: 'lm-cancelled', leftOff: 'never saved' }, 'Cancel');
    assert.match(dialog, /Save checkpoint\?/);
    assert.match(dialog, new RegExp(`"lm-cancelled" \\(left off: "never saved"\\) to ${escapeRegExp(t.dir)}`));
    await assert.rejects(result);
    assert.equal(existsSync(file('lm-cancelled')), false);
    assert.ok(!(await labels(t.api, t.folder)).includes('lm-cancelled'));
  });

  it('checkpoint_save, once confirmed, saves: file, MEMORY.md, the tree and the status bar', async () => {
    const input = { name: 'lm-save', leftOff: 'Wiring the callback', done: ['login form'], failed: ['polling — too slow'] };
    const { result } = await invokeConfirmed('checkpoint_save', input, 'Yes');
    assert.match(await result, /^Saved checkpoint "lm-save" \(branch main, /);
    assert.ok(existsSync(file('lm-save')));
    assert.match(readIndex(t.dir), /^- \*\*lm-save\*\* \(.*\) — Wiring the callback$/m);
    assert.ok((await labels(t.api, t.folder)).includes('lm-save'), 'in the tree');
    assert.equal(t.api.statusBar.state.name, 'lm-save', 'in the status bar');
  });

  it('checkpoint_list and checkpoint_show read without asking', async () => {
    assert.match(await invoke('checkpoint_list', {}), /^- lm-save \[main; saved .*\] Wiring the callback$/m);
    const shown = await invoke('checkpoint_show', { name: 'lm-save' });
    assert.match(shown, /Wiring the callback/);
    assert.match(shown, /Previously failed: polling — too slow/);
    assert.ok(existsSync(file('lm-save')), 'not consumed');
  });

  it('checkpoint_resume, once confirmed, resumes and consumes it: the tree drops it and Undo puts it back', async () => {
    const { dialog, result } = await invokeConfirmed('checkpoint_resume', { name: 'lm-save' }, 'Yes');
    assert.match(dialog, /Resume checkpoint\?/);
    assert.match(dialog, /trash/);
    const text = await result;
    assert.match(text, /Wiring the callback/);
    assert.match(text, /Previously failed: polling — too slow/);
    assert.match(text, /consumed: moved to /);
    assert.equal(existsSync(file('lm-save')), false);
    assert.ok(!(await labels(t.api, t.folder)).includes('lm-save'), 'gone from the tree');
    assert.equal(await vscode.commands.executeCommand<string>('checkpoint.undo'), file('lm-save'));
    assert.ok((await labels(t.api, t.folder)).includes('lm-save'), 'back in the tree');
  });
});
