import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { ITEM_SEPARATOR, previewName, splitItems, suggestName } from '../../src/core/saveForm';
import { MAX_NAME_LENGTH } from '../../src/core/names';

test('splitItems: one line of text → list items at ";", trimmed, empty ones dropped', () => {
  assert.equal(ITEM_SEPARATOR, ';');
  const cases: [string, string[]][] = [
    ['', []],
    ['   ', []],
    [' ; ;; ; ', [';']],
    ['one', ['one']],
    ['Added the form; Wrote the happy-path test', ['Added the form', 'Wrote the happy-path test']],
    ['a;b;c', ['a', 'b', 'c']],
    ['  a  ;  b  ', ['a', 'b']],
    ['a;', ['a']],
    [';a', ['a']],
    ['a;;;b', ['a;', 'b']],
    ['a; ;b', ['a', 'b']],
    ['Cookies — blocked by SameSite; JWT in localStorage — XSS risk', ['Cookies — blocked by SameSite', 'JWT in localStorage — XSS risk']],
  ];
  for (const [text, items] of cases) assert.deepEqual(splitItems(text), items, JSON.stringify(text));
});

test('splitItems: a doubled ";;" stands for a literal ";"', () => {
  assert.deepEqual(splitItems('for (;;) loop'), ['for (;) loop']);
  assert.deepEqual(splitItems('x;;y; z'), ['x;y', 'z']);
  assert.deepEqual(splitItems('x;;;;y'), ['x;;y']);
  assert.deepEqual(splitItems(';;'), [';']);
  // Round trip: items with ";" escaped as ";;" and joined with "; " come back as they were.
  const items = ['a;b', 'plain', 'c;;d', 'e;'];
  assert.deepEqual(splitItems(items.map((i) => i.replaceAll(';', ';;')).join('; ')), items);
});

test('splitItems keeps text it does not split: Markdown, unicode, other punctuation', () => {
  assert.deepEqual(splitItems('**bold**, `code`: done | next'), ['**bold**, `code`: done | next']);
  assert.deepEqual(splitItems('日本語;émoji 🚀'), ['日本語', 'émoji 🚀']);
});

test('suggestName: the plan\'s name first', () => {
  assert.equal(suggestName({ plan: '/home/me/.claude/plans/fix-auth-race.md', branch: 'main' }), 'fix-auth-race');
  assert.equal(suggestName({ plan: '/plans/Fix Auth Race.MD' }), 'fix-auth-race');
  // A plan folder name (JSON checkpoints) works the same.
  assert.equal(suggestName({ plan: 'db-migration' }), 'db-migration');
  // A plan name with nothing usable falls back to the branch.
  assert.equal(suggestName({ plan: '/plans/🚀.md', branch: 'feature/oauth' }), 'feature-oauth');
});

test('suggestName: else the branch, sanitized', () => {
  assert.equal(suggestName({ branch: 'main' }), 'main');
  assert.equal(suggestName({ branch: 'feature/oauth' }), 'feature-oauth');
  assert.equal(suggestName({ branch: 'User/JIRA-123_Fix' }), 'user-jira-123_fix');
  assert.equal(suggestName({ branch: 'HEAD-refactor' }), 'head-refactor', 'a branch that starts with HEAD is still a branch');
  assert.equal(suggestName({ branch: 'a'.repeat(100) }), 'a'.repeat(MAX_NAME_LENGTH));
});

test('suggestName: "checkpoint" when there is neither (detached HEAD, no repository, nothing usable)', () => {
  assert.equal(suggestName({}), 'checkpoint');
  assert.equal(suggestName({ branch: '' }), 'checkpoint');
  assert.equal(suggestName({ plan: '', branch: '' }), 'checkpoint');
  assert.equal(suggestName({ branch: 'HEAD (detached at abc1234)' }), 'checkpoint');
  assert.equal(suggestName({ branch: 'HEAD' }), 'checkpoint');
  assert.equal(suggestName({ branch: '🚀' }), 'checkpoint');
});

test('previewName: the sanitized name and its file name', () => {
  assert.deepEqual(previewName('Login Form'), { name: 'login-form', fileName: 'checkpoint-login-form.md' });
  assert.deepEqual(previewName('oauth-callback'), { name: 'oauth-callback', fileName: 'checkpoint-oauth-callback.md' });
  // Spaces become "-" and leading ones go; trailing ones stay (as sanitizeName does everywhere).
  assert.deepEqual(previewName('  Spaces  '), { name: 'spaces--', fileName: 'checkpoint-spaces--.md' });
  // Never a path: separators and leading dots go.
  assert.deepEqual(previewName('../../etc/passwd'), { name: 'etc-passwd', fileName: 'checkpoint-etc-passwd.md' });
  const long = previewName('x'.repeat(200));
  assert.equal(long.name.length, MAX_NAME_LENGTH);
  assert.equal(long.fileName, `checkpoint-${'x'.repeat(MAX_NAME_LENGTH)}.md`);
  assert.equal(long.error, undefined);
});

test('previewName: why a name cannot be used', () => {
  for (const empty of ['', '   ', '\t']) {
    assert.deepEqual(previewName(empty), { name: '', error: 'A name is required.' }, JSON.stringify(empty));
  }
  for (const unusable of ['///', '...', '---', '🚀', '!!!']) {
    const p = previewName(unusable);
    assert.equal(p.name, '', unusable);
    assert.equal(p.fileName, undefined, unusable);
    assert.match(p.error ?? '', /^Nothing usable is left: use letters, digits/, unusable);
  }
});
