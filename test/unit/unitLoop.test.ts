// The inner loop is one thing however it is started: `npm run test:unit`, the launch configurations and
// `node scripts/test.mjs --unit` all compile, bundle and then run the unit tests, so no test meets a stale bundle.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const read = (file: string): string => readFileSync(path.join(ROOT, file), 'utf8');

test('npm run test:unit and the launch configurations run scripts/test.mjs --unit', () => {
  const pkg = JSON.parse(read('package.json')) as { scripts: Record<string, string> };
  assert.equal(pkg.scripts['test:unit'], 'node scripts/test.mjs --unit');
  // launch.json has comments (JSONC): whole-line ones only.
  const launch = JSON.parse(read('.vscode/launch.json').replace(/^\s*\/\/.*$/gm, '')) as { configurations: { name: string; program?: string; args?: string[] }[] };
  const config = (name: string) => launch.configurations.find((c) => c.name === name);
  assert.deepEqual([config('Unit tests')?.program, config('Unit tests')?.args], ['${workspaceFolder}/scripts/test.mjs', ['--unit']]);
  assert.deepEqual([config('Unit tests: this file')?.program, config('Unit tests: this file')?.args], ['${workspaceFolder}/scripts/test.mjs', ['--unit', '${file}']]);
});

test('scripts/test.mjs compiles and bundles before any stage, the unit tests included', () => {
  const script = read('scripts/test.mjs');
  const compile = script.indexOf("await step('compile (tsc)'");
  const bundle = script.indexOf("await step('bundle (esbuild)'");
  const unit = script.indexOf("await nodeTests('unit'");
  assert.ok(compile >= 0 && bundle > compile && unit > bundle, 'compile, bundle, then the unit tests');
  // Neither step is inside a block that only the whole suite runs: both are top-level statements.
  for (const at of [compile, bundle]) assert.equal(script.lastIndexOf('\n', at), at - 1, 'a top-level statement');
});
