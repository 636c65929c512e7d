import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { sanitizeName, validateName, nameFromFileName, fileNameFor } from '../../src/core/names';
import { CheckpointError } from '../../src/core/errors';
import { tableTest } from '../support/tables';

tableTest('sanitizeName follows the spec rules', sanitizeName, [
  ['My Feature', 'my-feature'],
  ['feature/oauth', 'feature-oauth'],
  ['a\\b', 'a-b'],
  ['.hidden', 'hidden'],
  ['--flag', 'flag'],
  ['-.-x', 'x'],
  ['../../etc/passwd', 'etc-passwd'],
  ['/abs/path', 'abs-path'],
  ['Fix: auth (race)!', 'fix-auth-race'],
  ['emoji 🚀 rocket', 'emoji--rocket'],
  ['tab\there', 'tabhere'],
  ['v1.2_final', 'v1.2_final'],
  ['trailing-', 'trailing-'],
]);

test('sanitizeName keeps at most 64 characters', () => {
  assert.equal(sanitizeName('a'.repeat(1000)), 'a'.repeat(64));
});

test('validateName refuses names that are empty after sanitizing', () => {
  for (const bad of ['', '   '.replace(/ /g, '\u0000'), '.', '..', '---', '🚀', '!!!', '\u0001\u0002']) {
    assert.throws(() => validateName(bad), CheckpointError, JSON.stringify(bad));
  }
  assert.equal(validateName('..ok'), 'ok');
});

test('file names round-trip', () => {
  assert.equal(fileNameFor('x'), 'checkpoint-x.md');
  assert.equal(nameFromFileName('checkpoint-my-feature.md'), 'my-feature');
  assert.equal(nameFromFileName('checkpoint-.md'), undefined);
  assert.equal(nameFromFileName('MEMORY.md'), undefined);
  assert.equal(nameFromFileName('checkpoint-x.md.bak'), undefined);
});
