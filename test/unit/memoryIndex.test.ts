import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { formatBullet, indexedNames, removeFromIndex, upsertIndex, RESUME_LINE } from '../../src/core/memoryIndex';

const b = (name: string, summary = `${name} summary`): string => `- **${name}** (main, Nov 25) — ${summary}`;

test('no MEMORY.md: created with # Project Memory as its heading', () => {
  assert.equal(upsertIndex(undefined, 'a', b('a')).text, `# Project Memory\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n`);
});

test('no section: inserted after the first heading line, everything else kept', () => {
  const doc = '# Project memory\n\nUser notes here.\n\n## Other\n- keep me\n';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.equal(out, `# Project memory\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n\nUser notes here.\n\n## Other\n- keep me\n`);
  assert.equal(removeFromIndex(out, ['a']), doc);
});

test('no heading at all: the section goes first', () => {
  const doc = 'plain notes\nmore\n';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.equal(out, `## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n\nplain notes\nmore\n`);
  assert.equal(removeFromIndex(out, ['a']), doc);
  assert.equal(removeFromIndex(upsertIndex('', 'a', b('a')).text, ['a']), '');
});

test('new bullets go first (newest first); existing ones are updated in place', () => {
  let doc = upsertIndex(undefined, 'a', b('a')).text;
  doc = upsertIndex(doc, 'b', b('b')).text;
  doc = upsertIndex(doc, 'c', b('c')).text;
  assert.deepEqual(indexedNames(doc), ['c', 'b', 'a']);
  doc = upsertIndex(doc, 'b', b('b', 'changed')).text;
  assert.deepEqual(indexedNames(doc), ['c', 'b', 'a']);
  assert.match(doc, /- \*\*b\*\* \(main, Nov 25\) — changed\n/);
  assert.equal(doc.split(RESUME_LINE).length, 2, 'one resume line');
});

test('removing the last bullet removes the whole section', () => {
  const doc = '# Memory\n\n## Active Checkpoints\n' + b('a') + '\n' + b('b') + '\n\n' + RESUME_LINE + '\n\n## After\ntext\n';
  const one = removeFromIndex(doc, ['a']);
  assert.equal(one, '# Memory\n\n## Active Checkpoints\n' + b('b') + '\n\n' + RESUME_LINE + '\n\n## After\ntext\n');
  assert.equal(removeFromIndex(one, ['b']), '# Memory\n\n## After\ntext\n');
  assert.equal(removeFromIndex(doc, 'all'), '# Memory\n\n## After\ntext\n');
});

test('CRLF line endings are kept, and new lines use them', () => {
  const doc = '# Memory\r\n\r\nNotes\r\n';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.equal(out, `# Memory\r\n\r\n## Active Checkpoints\r\n${b('a')}\r\n\r\n${RESUME_LINE}\r\n\r\nNotes\r\n`);
  assert.doesNotMatch(out.replace(/\r\n/g, ''), /\n/);
  assert.equal(removeFromIndex(out, ['a']), doc);
});

test('a missing final newline stays missing', () => {
  const doc = '# Memory';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.equal(out, `# Memory\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}`);
  assert.equal(removeFromIndex(out, ['a']), doc);
  const doc2 = `# M\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}`;
  const two = upsertIndex(doc2, 'b', b('b')).text;
  assert.equal(two, `# M\n\n## Active Checkpoints\n${b('b')}\n${b('a')}\n\n${RESUME_LINE}`);
});

test('a fenced code block that contains the section heading is not the section', () => {
  const doc = '# Memory\n\n```markdown\n## Active Checkpoints\n- **fake** (x, Nov 01) — inside a fence\n```\n\nText\n';
  assert.deepEqual(indexedNames(doc), []);
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.ok(out.includes('```markdown\n## Active Checkpoints\n- **fake** (x, Nov 01) — inside a fence\n```'));
  assert.deepEqual(indexedNames(out), ['a']);
  assert.equal(removeFromIndex(out, ['a']), doc);
  assert.equal(removeFromIndex(doc, ['fake']), doc);
  const tilde = '~~~\n# Not a heading\n~~~\n# Real\n';
  assert.equal(upsertIndex(tilde, 'a', b('a')).text, `~~~\n# Not a heading\n~~~\n# Real\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n`);
});

test('the section ends at the next heading; content after it is untouched', () => {
  const doc = `# M\n## Active Checkpoints\n${b('x')}\n\n${RESUME_LINE}\n## Notes\n- **x** (not ours) — outside\n`;
  const out = upsertIndex(doc, 'y', b('y')).text;
  assert.equal(out, `# M\n## Active Checkpoints\n${b('y')}\n${b('x')}\n\n${RESUME_LINE}\n## Notes\n- **x** (not ours) — outside\n`);
  assert.equal(removeFromIndex(out, ['x', 'y']), '# M\n## Notes\n- **x** (not ours) — outside\n');
});

test('an empty section gets the bullet and the resume line', () => {
  assert.equal(upsertIndex('# M\n\n## Active Checkpoints\n\n## Next\n', 'a', b('a')).text, `# M\n\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n\n## Next\n`);
});

test('user text inside the section is kept when the last bullet goes', () => {
  const doc = `# M\n## Active Checkpoints\nMy own note\n${b('a')}\n\n${RESUME_LINE}\n`;
  // The resume line stays too: it ends the section, so the user's lines after it are never read as bullets.
  assert.equal(removeFromIndex(doc, ['a']), `# M\n## Active Checkpoints\nMy own note\n\n${RESUME_LINE}\n`);
});

test('user bullets after the resume line are not ours (regression: a section inserted after the first heading swallowed them)', () => {
  const doc = '# Project memory\n- **Build**: run make first\n- **Style**: tabs\n\n## Other\n';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.deepEqual(indexedNames(out), ['a']);
  // Save then delete leaves the file as it was: the section went right under the heading, with one blank line after
  // it, and removing it takes that line again (no blank line more after the title).
  assert.equal(out, `# Project memory\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n\n- **Build**: run make first\n- **Style**: tabs\n\n## Other\n`);
  assert.equal(removeFromIndex(out, 'all'), doc, 'delete --all keeps the user\'s bold bullets');
  assert.equal(removeFromIndex(out, ['a']), doc);
  const kept = removeFromIndex(`# M\n## Active Checkpoints\nMy own note\n${b('a')}\n${RESUME_LINE}\n${b('a', 'user line')}\n`, ['a']);
  assert.equal(removeFromIndex(kept, ['a']), kept, 'a second removal takes nothing more');
});

test('YAML front matter without a heading stays first (regression: the section went above it)', () => {
  const doc = '---\ntitle: memory\n# a comment\n---\nnotes\n';
  const out = upsertIndex(doc, 'a', b('a')).text;
  assert.equal(out, `---\ntitle: memory\n# a comment\n---\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n\nnotes\n`);
  assert.equal(removeFromIndex(out, ['a']), doc);
});

test('removing a name that is not there changes nothing', () => {
  const doc = `# M\r\n## Active Checkpoints\r\n${b('a')}\r\n`;
  assert.equal(removeFromIndex(doc, ['zzz']), doc);
  assert.equal(removeFromIndex('# Nothing', ['a']), '# Nothing');
});

test('warns when the bullet lies beyond what Claude Code reads', () => {
  const long = '# M\n' + Array.from({ length: 250 }, (_, i) => `line ${i}`).join('\n') + '\n## Active Checkpoints\n';
  assert.match(upsertIndex(long, 'a', b('a')).budgetWarning ?? '', /first 200 lines/);
  assert.equal(upsertIndex(undefined, 'a', b('a')).budgetWarning, undefined);
  const wide = '# M\n' + 'x'.repeat(30 * 1024) + '\n## Active Checkpoints\n';
  assert.match(upsertIndex(wide, 'a', b('a')).budgetWarning ?? '', /"a" is at line 4 .*25,000 characters/);
});

test('the budget is what Claude Code loads: 25,000 characters, not bytes, after trimming leading blank lines', () => {
  // 24,000 three-byte characters: 72 KB, but within Claude Code's 25,000 characters.
  const wide = '# M\n' + '界'.repeat(24_000) + '\n## Active Checkpoints\n';
  assert.equal(upsertIndex(wide, 'a', b('a')).budgetWarning, undefined);
  // 198 lines after 3 blank ones: the bullet is line 200 of what Claude Code counts.
  const notes = Array.from({ length: 197 }, (_, i) => `line ${i}`).join('\n');
  assert.equal(upsertIndex(`\n\n\n# M\n${notes}\n## Active Checkpoints\n`, 'a', b('a')).budgetWarning, undefined);
});

test('warns when a new bullet pushes a line of the user past what Claude Code loads, not when it was past already', () => {
  const notes = (n: number): string => Array.from({ length: n }, (_, i) => `note ${i + 1}`).join('\n');
  const at200 = `# M\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n${notes(195)}\n`;
  assert.match(upsertIndex(at200, 'b', b('b')).budgetWarning ?? '', /^Line 201 of MEMORY\.md \("note 195"\) is now past what the agent sees/);
  const past = `# M\n## Active Checkpoints\n${b('a')}\n\n${RESUME_LINE}\n${notes(200)}\n`;
  assert.match(upsertIndex(past, 'b', b('b')).budgetWarning ?? '', /^Line 201 of MEMORY\.md \("note 195"\)/);
  // Editing a bullet in place pushes nothing; a file already over the budget is not news.
  assert.equal(upsertIndex(past, 'a', b('a')).budgetWarning, undefined);
});

test('formatBullet', () => {
  const saved = new Date(2026, 10, 5, 12).toISOString();
  assert.equal(formatBullet({ name: 'a', branch: 'feature/x', saved, description: 'Left off\nhere' }), '- **a** (feature/x, Nov 05) — Left off here');
  assert.equal(formatBullet({ name: 'a', branch: '', saved, description: 'x' }), '- **a** (no branch, Nov 05) — x');
});

// The section as 0.1.0 wrote it: read as the same section, renamed at the next write.
const legacy = `# Memory\n\nNotes.\n\n## Checkpoints\n${b('old')}\n\n${RESUME_LINE}\n\n## After\ntext\n`;

test('a "## Checkpoints" section (0.1.0) is read as the checkpoint section', () => {
  assert.deepEqual(indexedNames(legacy), ['old']);
  assert.deepEqual(indexedNames(`# M\n##  Checkpoints ##\n${b('x')}\n`), ['x']);
});

test('saving renames "## Checkpoints" to "## Active Checkpoints" and adds no second section', () => {
  const out = upsertIndex(legacy, 'new', b('new')).text;
  assert.equal(out, `# Memory\n\nNotes.\n\n## Active Checkpoints\n${b('new')}\n${b('old')}\n\n${RESUME_LINE}\n\n## After\ntext\n`);
  assert.equal(out.split(RESUME_LINE).length, 2, 'one resume line');
  assert.equal(upsertIndex(legacy, 'old', b('old', 'updated')).text, legacy.replace('## Checkpoints', '## Active Checkpoints').replace('old summary', 'updated'));
});

test('removing a bullet from a "## Checkpoints" section renames it; removing the last takes the whole section', () => {
  const two = legacy.replace(`${b('old')}\n`, `${b('old')}\n${b('other')}\n`);
  assert.equal(removeFromIndex(two, ['old']), `# Memory\n\nNotes.\n\n## Active Checkpoints\n${b('other')}\n\n${RESUME_LINE}\n\n## After\ntext\n`);
  assert.equal(removeFromIndex(legacy, ['old']), '# Memory\n\nNotes.\n\n## After\ntext\n');
  assert.equal(removeFromIndex(legacy, ['missing']), legacy, 'nothing removed: nothing written, nothing renamed');
});

test('two checkpoint sections (0.1.0 next to the skill) become one at the next write', () => {
  const doc = `# Project Memory\n\n## Active Checkpoints\n${b('agent')}\n\n${RESUME_LINE}\n\n## Notes\nkeep\n\n## Checkpoints\n${b('ext')}\n${b('agent', 'dup')}\n\n${RESUME_LINE}\n\n## Tail\n`;
  assert.deepEqual(indexedNames(doc), ['agent', 'ext'], 'both are read');
  const out = upsertIndex(doc, 'n', b('n')).text;
  assert.equal(out, `# Project Memory\n\n## Active Checkpoints\n${b('n')}\n${b('agent')}\n${b('ext')}\n\n${RESUME_LINE}\n\n## Notes\nkeep\n\n## Tail\n`);
  assert.equal(removeFromIndex(doc, ['ext']), `# Project Memory\n\n## Active Checkpoints\n${b('agent')}\n\n${RESUME_LINE}\n\n## Notes\nkeep\n\n## Tail\n`);
  assert.equal(removeFromIndex(doc, 'all'), '# Project Memory\n\n## Notes\nkeep\n\n## Tail\n');
});

test('the skill\'s own MEMORY.md: a save updates it in place, byte for byte elsewhere', () => {
  const doc = `# Project Memory\n\n## Conventions\n- tabs\n\n## Active Checkpoints\n- **My Feature** (main, Nov 24) — agent wrote this\n\n${RESUME_LINE}\n`;
  assert.deepEqual(indexedNames(doc), ['My Feature']);
  const out = upsertIndex(doc, 'x', b('x')).text;
  assert.equal(out, doc.replace('- **My Feature**', `${b('x')}\n- **My Feature**`));
  assert.equal(removeFromIndex(removeFromIndex(out, ['x']), ['My Feature']), '# Project Memory\n\n## Conventions\n- tabs\n');
});

test('warns when a new bullet pushes an older one past line 200', () => {
  const bullets = Array.from({ length: 198 }, (_, i) => `- **n${i}** (main, Nov 25) — x`);
  const doc = ['# H', '## Active Checkpoints', ...bullets, ''].join('\n');
  const edit = upsertIndex(doc, 'zz', '- **zz** (main, Nov 25) — new');
  assert.match(edit.budgetWarning ?? '', /"n197" is at line 201/);
  assert.equal(upsertIndex(['# H', '## Active Checkpoints', ...bullets.slice(0, 5), ''].join('\n'), 'zz', '- **zz** (main, Nov 25) — new').budgetWarning, undefined);
});

test('a byte-order mark stays first and does not hide the first heading', () => {
  const doc = '\uFEFF# Notes\n\nText\n';
  const out = upsertIndex(doc, 'a', '- **a** (main, Nov 25) — x').text;
  assert.equal(out, '\uFEFF# Notes\n\n## Active Checkpoints\n- **a** (main, Nov 25) — x\n\nResume any: `continue` or `continue {name}`\n\nText\n');
  assert.deepEqual(indexedNames(out), ['a']);
  assert.equal(removeFromIndex(out, ['a']), doc);
});
