// Smaller index and branch cases that 0.1.0 (commit 7104910) got wrong: a `## Checkpoints` inside an HTML comment
// was taken as the section; a setext heading (`Title` / `===`) was not seen as the first heading; a user's own bold
// bullet in the section was taken for a checkpoint (`resume todo` deleted `- **todo** buy milk`); `switchBranch`
// accepted `@` and `@{-1}` and detached HEAD.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import * as path from 'node:path';
import { git } from '../support/fixtures';
import { attackWorld } from '../support/attackWorld';
import { indexedNames, removeFromIndex, upsertIndex } from '../../src/core/memoryIndex';
import { switchBranch } from '../../src/core/git';

const bullet = '- **a** (main, Nov 20) — left off in a';

test('a "## Checkpoints" inside an HTML comment is not the section: the comment stays byte for byte', () => {
  const doc = '# Memory\n\n<!--\n## Checkpoints\n- **old** (main, Nov 01) — commented out\n\nResume any: `continue` or `continue {name}`\n-->\nText.\n';
  const edit = upsertIndex(doc, 'a', bullet);
  assert.ok(edit.text.includes('<!--\n## Checkpoints\n- **old** (main, Nov 01) — commented out\n\nResume any: `continue` or `continue {name}`\n-->\n'), edit.text);
  assert.match(edit.text, /^# Memory\n\n## (Active )?Checkpoints\n- \*\*a\*\*/);
  assert.deepEqual(indexedNames(doc), []);
  assert.equal(removeFromIndex(doc, 'all'), doc);
  // One-line comments and a comment that opens mid-way through are comments too.
  const inline = '# M\n<!-- ## Checkpoints -->\n<!-- start\n## Checkpoints\nend -->\n';
  assert.deepEqual(indexedNames(inline), []);
  assert.ok(upsertIndex(inline, 'a', bullet).text.endsWith(inline.slice('# M\n'.length)));
});

test('a setext heading ("Title" / "=====") is the first heading: the section goes after it', () => {
  for (const underline of ['=====', '===']) {
    const doc = `Project notes\n${underline}\n\nSome text.\n`;
    const edit = upsertIndex(doc, 'a', bullet);
    assert.ok(edit.text.startsWith(`Project notes\n${underline}\n\n## `), edit.text);
    assert.ok(edit.text.endsWith('\n\nSome text.\n'), edit.text);
    assert.equal(removeFromIndex(edit.text, ['a']), doc, 'upsert then remove restores the document');
  }
  // "Title" / "-----" is a level-two heading: no place for the section, which then goes first (SPEC).
  const two = 'Project notes\n-----\n\nSome text.\n';
  assert.ok(upsertIndex(two, 'a', bullet).text.startsWith('## Active Checkpoints\n'));
  assert.equal(removeFromIndex(upsertIndex(two, 'a', bullet).text, ['a']), two);
  // A thematic break after a blank line is not a heading; an ATX heading before a setext one comes first.
  assert.ok(upsertIndex('Text\n\n---\n# Real\n', 'a', bullet).text.startsWith('Text\n\n---\n# Real\n\n## '));
});

test("a user's own bold bullet in the section: delete --all keeps it; resume or delete of its very name removes it as that checkpoint's (the bold name decides)", async () => {
  const w = attackWorld();
  try {
    mkdirSync(w.mem);
    const doc = '# Memory\n\n## Checkpoints\n- **todo** buy milk\n- **a** (main, Nov 20) — left off in a\n\nResume any: `continue` or `continue {name}`\n\n## Notes\n- **keep** mine\n';
    const index = path.join(w.mem, 'MEMORY.md');
    writeFileSync(index, doc);
    writeFileSync(path.join(w.mem, 'checkpoint-a.md'), '---\nname: a\ndescription: left off in a\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: a\n## Left Off\nleft off in a\n');
    const all = await w.cli(['delete', '--all']);
    assert.equal(all.code, 0, all.err);
    const after = readFileSync(index, 'utf8');
    assert.match(after, /^- \*\*todo\*\* buy milk$/m, 'the user bullet stays');
    assert.doesNotMatch(after, /\*\*a\*\*/, 'the checkpoint bullet went');
    // A bold bullet whose checkpoint file exists is that checkpoint's (an agent may write bullets by hand).
    writeFileSync(path.join(w.mem, 'checkpoint-todo.md'), '---\nname: todo\ndescription: now a checkpoint\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: todo\n## Left Off\nnow a checkpoint\n');
    const del = await w.cli(['delete', 'todo']);
    assert.equal(del.code, 0, del.err);
    assert.doesNotMatch(readFileSync(index, 'utf8'), /buy milk/);
    // Named by the person, a bullet whose file is gone is that checkpoint's stale entry: resume cleans it up.
    writeFileSync(index, '# Memory\n\n## Active Checkpoints\n- **todo** buy milk\n\nResume any: `continue` or `continue {name}`\n');
    const resume = await w.cli(['resume', 'todo']);
    assert.equal(resume.code, 0, resume.err);
    assert.match(resume.out + resume.err, /cleaned up stale entry "todo"/);
    assert.doesNotMatch(readFileSync(index, 'utf8'), /todo/);
  } finally {
    w.done();
  }
});

test('switchBranch refuses "@" and "@{-1}": HEAD stays on its branch', async () => {
  const w = attackWorld();
  try {
    git(w.repo, 'checkout', '-q', '-b', 'other');
    git(w.repo, 'checkout', '-q', 'main');
    for (const name of ['@', '@{-1}', '@{1}', 'main@{-1}']) {
      await assert.rejects(switchBranch(w.repo, name), /is not a valid branch name/, name);
      assert.equal(git(w.repo, 'symbolic-ref', '--short', 'HEAD').trim(), 'main', `after ${name}`);
    }
    await switchBranch(w.repo, 'other');
    assert.equal(git(w.repo, 'symbolic-ref', '--short', 'HEAD').trim(), 'other');
  } finally {
    w.done();
  }
});

test('a second checkpoint section right after the first, the blank line between them its last line: merged, not a crash', () => {
  // An agent's file: the first section runs to the second's heading, whose blank line before it is the first's.
  const text = '## Other\n  ## Checkpoints ##\n- **b** (x, Nov 5) – y (q, Nov 06) — r\n- **c** (main, Nov 05) — did **\n\n  ## Checkpoints ##\n';
  const up = upsertIndex(text, 'z', '- **z** (m, Nov 05) — q').text;
  assert.equal(up.match(/Checkpoints/g)?.length, 1, 'one section');
  assert.deepEqual(indexedNames(up), ['z', 'b', 'c']);
  assert.ok(up.startsWith('## Other\n'));
  assert.equal(removeFromIndex(text, 'all'), '## Other\n');
  assert.deepEqual(indexedNames(removeFromIndex(text, ['b'])), ['c']);
});
