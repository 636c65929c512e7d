// The two import arrows the layers depend on (README, "Development"), as the project's lint configuration enforces
// them: src/core/ never imports the editor API and src/editor/commands/ never imports the views, in either import form
// (the tree's node types, what a command is given when run from the view, may be named in a type import).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import * as path from 'node:path';
import { ESLint } from 'eslint';

const root = path.join(__dirname, '..', '..', '..');

async function ruleIds(file: string, code: string): Promise<string[]> {
  const [result] = await new ESLint({ cwd: root }).lintText(code, { filePath: path.join(root, file) });
  return result.messages.map((m) => m.ruleId ?? m.message);
}

test('src/core/ cannot import vscode, as an ES import or as import = require', async () => {
  for (const code of ["import * as vscode from 'vscode';\nexport const w = vscode.window;\n", "import vscode = require('vscode');\nexport const w = vscode.window;\n"]) {
    assert.deepEqual(await ruleIds('src/core/probe.ts', code), ['@typescript-eslint/no-restricted-imports'], code);
  }
  assert.deepEqual(await ruleIds('src/editor/probe.ts', "import vscode = require('vscode');\nexport const w = vscode.window;\n"), [], 'outside the core it may');
});

test('src/editor/commands/ cannot import the views, in either form', async () => {
  for (const code of ["import { CheckpointTreeProvider } from '../views/checkpointTree';\nexport const t = CheckpointTreeProvider;\n", "import tree = require('../views/checkpointTree');\nexport const t = tree;\n"]) {
    assert.deepEqual(await ruleIds('src/editor/commands/probe.ts', code), ['@typescript-eslint/no-restricted-imports'], code);
  }
  const nodeType = "import type { ItemNode } from '../views/nodes';\nexport const isItem = (n: ItemNode): boolean => n.kind === 'checkpoint';\n";
  assert.deepEqual(await ruleIds('src/editor/commands/probe.ts', nodeType), [], 'the tree node types a command is given may be named');
});
