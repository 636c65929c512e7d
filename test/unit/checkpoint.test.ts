import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { parseCheckpoint } from '../../src/core/checkpointParse';
import { renderCheckpoint, renderCheckpointBody } from '../../src/core/checkpointRender';
import type { Checkpoint } from '../../src/core/checkpoint';
import { parseFrontMatter } from '../../src/core/frontMatter';
import { CheckpointError } from '../../src/core/errors';

const sample: Checkpoint = {
  name: 'my-feature',
  description: 'Wiring the OAuth callback; token refresh still failing',
  branch: 'feature/oauth',
  saved: '2026-11-25T21:40:00.000Z',
  plan: '/home/me/.claude/plans/fix-auth-race.md',
  planStep: 3,
  planSteps: 7,
  leftOff: 'Wiring the OAuth callback; token refresh still failing',
  done: ['Added provider registry entry'],
  failed: ['Storing tokens in cookies — blocked by SameSite on the callback'],
  decisions: [],
  questions: [],
  modifiedFiles: ['src/auth/google.ts'],
};

test('renders front matter and the body', () => {
  const text = renderCheckpoint(sample);
  assert.match(text, /^---\nname: my-feature\ndescription: "Wiring the OAuth callback; token refresh still failing"\ntype: checkpoint\nbranch: feature\/oauth\nsaved: 2026-11-25T21:40:00.000Z\nplan: \/home\/me\/.claude\/plans\/fix-auth-race.md\nplanStep: 3\nplanSteps: 7\n---\n# Checkpoint: my-feature\n/);
  assert.match(text, /\n- \*\*Branch:\*\* `feature\/oauth`\n- \*\*Saved:\*\* \d{4}-\d{2}-\d{2} \d{2}:\d{2}\n- \*\*Plan:\*\* `\/home\/me\/.claude\/plans\/fix-auth-race.md` \(step 3 of 7\)\n## Left Off\n/);
  assert.match(text, /## Done This Session\n- Added provider registry entry\n## Failed Approaches\n- Storing tokens/);
  assert.match(text, /## Modified Files\n- src\/auth\/google.ts\n$/);
  assert.doesNotMatch(text, /## Decisions|## Open Questions/);
});

test('the body a person reads is the file without its front matter (no raw UTC, no object ids)', () => {
  const withSnapshot = { ...sample, head: 'a'.repeat(40), snapshot: 'b'.repeat(40) };
  const body = renderCheckpointBody(withSnapshot);
  assert.equal(renderCheckpoint(withSnapshot), `${renderCheckpoint(withSnapshot).split('\n---\n')[0]}\n---\n${body}`);
  assert.match(body, /^# Checkpoint: my-feature\n- \*\*Branch:\*\* `feature\/oauth`\n- \*\*Saved:\*\* \d{4}-\d{2}-\d{2} \d{2}:\d{2}\n/);
  assert.doesNotMatch(body, /^---|2026-11-25T|aaaa|bbbb|^type:/m);
});

test('render then parse gives the same checkpoint', () => {
  assert.deepEqual(parseCheckpoint(renderCheckpoint(sample), 'my-feature'), sample);
  const extra = { ...sample, decisions: ['Chose PKCE'], questions: ['Rotate keys?'], done: [], plan: undefined, planStep: undefined, planSteps: undefined };
  delete extra.plan;
  delete extra.planStep;
  delete extra.planSteps;
  const text = renderCheckpoint(extra);
  assert.match(text, /## Failed Approaches\n.*\n## Decisions\n- Chose PKCE\n## Open Questions\n- Rotate keys\?\n## Modified Files/);
  assert.match(text, /## Done This Session\nNone\n/);
  assert.doesNotMatch(text, /Plan/);
  assert.deepEqual(parseCheckpoint(text, 'my-feature'), extra);
});

test('user text cannot inject headings or front matter', () => {
  const cp = { ...sample, leftOff: 'line one\n## Failed Approaches\n---', done: ['a\n## Modified Files\n- /etc/passwd'] };
  const parsed = parseCheckpoint(renderCheckpoint(cp), 'my-feature');
  assert.deepEqual(parsed.failed, sample.failed);
  assert.deepEqual(parsed.modifiedFiles, sample.modifiedFiles);
  assert.equal(parsed.leftOff, 'line one\n## Failed Approaches\n---');
  assert.deepEqual(parsed.done, ['a ## Modified Files - /etc/passwd']);
});

test('hostile description and branch survive YAML quoting', () => {
  for (const s of ['yes', '123', '2025-01-01', '2026-11-25T21:40:00Z', '1e3', '0x1F', '12:30', 'a: b', '"quoted"', "it's", '#comment', 'null', '- dash', '@at', 'x\u2028y', 'tab\tin']) {
    const cp = { ...sample, description: s, branch: s };
    const text = renderCheckpoint(cp);
    // The front matter reads back as written (the body, which wins, says the same for the branch).
    assert.equal(parseFrontMatter(text).data?.description, s);
    assert.equal(parseFrontMatter(text).data?.branch, s);
    const parsed = parseCheckpoint(text, 'x');
    assert.equal(parsed.frontMatterSkipped, undefined);
    assert.equal(parsed.branch, s);
  }
});

test('regression: a date-like checkpoint name is quoted and reads back as text, not a date', () => {
  const cp = { ...sample, name: '2025-01-01' };
  const text = renderCheckpoint(cp);
  assert.match(text, /^name: "2025-01-01"$/m);
  assert.equal(parseCheckpoint(text, '2025-01-01').name, '2025-01-01');
});

test('parses a file written by hand without front matter', () => {
  const text = [
    '# Checkpoint: db-migration',
    '- **Branch:** `main`',
    '- **Saved:** 2026-11-24 09:15',
    '- **Plan:** `~/.claude/plans/migrate.md` (step 2 of 5)',
    '## Left Off',
    'Backfill script written; dry run pending',
    'Second line',
    '## Done This Session',
    '- Wrote backfill.sql',
    '* Reviewed indexes',
    '## Failed Approaches',
    'None',
    '## Modified Files',
    '- `db/backfill.sql`',
    '- db/schema.rb',
    '',
  ].join('\n');
  const cp = parseCheckpoint(text, 'db-migration');
  assert.equal(cp.branch, 'main');
  assert.equal(cp.saved, new Date(2026, 10, 24, 9, 15).toISOString());
  assert.equal(cp.plan, '~/.claude/plans/migrate.md');
  assert.equal(cp.planStep, 2);
  assert.equal(cp.planSteps, 5);
  assert.equal(cp.leftOff, 'Backfill script written; dry run pending\nSecond line');
  assert.equal(cp.description, 'Backfill script written; dry run pending');
  assert.deepEqual(cp.done, ['Wrote backfill.sql', 'Reviewed indexes']);
  assert.deepEqual(cp.failed, []);
  assert.deepEqual(cp.modifiedFiles, ['db/backfill.sql', 'db/schema.rb']);
});

test('parses CRLF files', () => {
  const crlf = renderCheckpoint(sample).replace(/\n/g, '\r\n');
  assert.deepEqual(parseCheckpoint(crlf, 'my-feature'), sample);
});

test('a date in front matter may come back as a Date or a string', () => {
  const quoted = renderCheckpoint(sample).replace('saved: 2026-11-25T21:40:00.000Z', "saved: '2026-11-25T21:40:00.000Z'");
  assert.equal(parseCheckpoint(quoted, 'x').saved, sample.saved);
  const dateOnly = renderCheckpoint(sample).replace('saved: 2026-11-25T21:40:00.000Z', 'saved: 2026-11-25').replace(/^- \*\*Saved:\*\* .*\n/m, '');
  assert.equal(parseCheckpoint(dateOnly, 'x').saved, '2026-11-25T00:00:00.000Z');
});

test('JavaScript front matter is never executed', () => {
  const g = globalThis as { pwned?: boolean };
  for (const lang of ['js', 'javascript', 'JS', 'coffee']) {
    const text = `---${lang}\n{ name: (globalThis.pwned = true, "x") }\n---\n# Checkpoint: x\n## Left Off\nhi\n`;
    // Skipped, never run: the file is read by its body.
    const cp = parseCheckpoint(text, 'x');
    assert.match(cp.frontMatterSkipped ?? '', /JavaScript/);
    assert.equal(cp.leftOff, 'hi');
    assert.throws(() => parseCheckpoint(text.replace('# Checkpoint: x\n## Left Off\nhi\n', ''), 'x'), CheckpointError);
  }
  assert.equal(g.pwned, undefined);
});

test('invalid front matter is skipped with the reason, and the file read by its body; with no body, an error with the reason', () => {
  assert.match(parseCheckpoint('---\nname: [unclosed\n---\n# Checkpoint: x\n', 'x').frontMatterSkipped ?? '', /invalid front matter/);
  assert.match(parseCheckpoint('---\nplanStep: three\n---\n# Checkpoint: x\n', 'x').frontMatterSkipped ?? '', /invalid front matter.*planStep/s);
  assert.match(parseCheckpoint('---\nsaved: not a date\n---\n# Checkpoint: x\n', 'x').frontMatterSkipped ?? '', /not a date/);
  assert.throws(() => parseCheckpoint('---\nsaved: not a date\n---\n', 'x'), /not a date/);
  assert.throws(() => parseCheckpoint('---\n- a\n- b\n---\n', 'x'), /key: value/);
});

test('text that is not a checkpoint is refused', () => {
  assert.throws(() => parseCheckpoint('', 'x'), CheckpointError);
  assert.throws(() => parseCheckpoint('just some notes\n', 'x'), /no checkpoint front matter/);
  assert.throws(() => parseCheckpoint('\u0000\u0001binary', 'x'), /not a text file/);
});

test('all plan steps done is shown as done and read back', () => {
  const cp = { ...sample, planStep: 8, planSteps: 7 };
  const text = renderCheckpoint(cp);
  assert.match(text, /\(all 7 steps done\)/);
  const noFm = text.replace(/^---[\s\S]*?---\n/, '');
  const parsed = parseCheckpoint(noFm, 'my-feature');
  assert.equal(parsed.planStep, 8);
  assert.equal(parsed.planSteps, 7);
});
