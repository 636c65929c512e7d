import * as assert from 'node:assert/strict';
import { existsSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import { suite } from './helpers';

const TOOLS = ['checkpoint_save', 'checkpoint_list', 'checkpoint_show', 'checkpoint_resume'];

/** Invokes a tool as a chat agent does (outside a chat request: no token) and returns its text. */
async function invoke(name: string, input: object): Promise<string> {
  const result = await vscode.lm.invokeTool(name, { input, toolInvocationToken: undefined });
  return result.content.map((p) => (p instanceof vscode.LanguageModelTextPart ? p.value : '')).join('');
}

suite('Language-model tools (Copilot agent mode)', {}, (t) => {
  it('lists the four checkpoint tools in vscode.lm.tools, with their input schemas and #checkpoint', () => {
    const ours = vscode.lm.tools.filter((tool) => TOOLS.includes(tool.name));
    assert.deepEqual(ours.map((tool) => tool.name).sort(), [...TOOLS].sort());
    const save = ours.find((tool) => tool.name === 'checkpoint_save')!;
    assert.deepEqual((save.inputSchema as { required?: string[] }).required, ['name', 'leftOff']);
    assert.ok(save.description.includes('Save a checkpoint'));
  });

  it('a bad argument is an error the model reads, and nothing is written', async () => {
    await assert.rejects(invoke('checkpoint_save', { name: 'bad', leftOff: 'x', done: 'not a list' }), /Invalid arguments for checkpoint_save: done/);
    assert.equal(existsSync(path.join(t.dir, 'checkpoint-bad.md')), false);
  });
});
