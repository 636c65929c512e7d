import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { branchWarning } from '../../src/core/resumeText';

test('branchWarning: the command it suggests works, for a branch and for a detached HEAD (git checkout <sha>)', () => {
  assert.match(branchWarning('HEAD (detached at 1b4e516)', 'main') ?? '', /Switch with: git checkout 1b4e516$/);
  assert.match(branchWarning('feature/x', 'main') ?? '', /Switch with: git checkout feature\/x$/);
  assert.equal(branchWarning('main', 'main'), undefined);
});
