// Property-based tests of the MEMORY.md index editor (src/core/memoryIndex.ts and its parts) over generated documents:
// headings of levels 1-3, paragraphs, bullets and resume lines that look like ours, fenced blocks that contain
// "## Checkpoints", YAML front matter, LF / CRLF / mixed line endings, with and without a final newline, with and
// without an existing section. SPEC: "Nothing outside the section changes, byte for byte".
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { indexedNames, removeFromIndex, upsertIndex, RESUME_LINE, SECTION_HEADING } from '../../src/core/memoryIndex';

/** Runs per property (each property sees this many generated documents); CHECKPOINT_PROPERTY_RUNS for a deeper run. */
export const RUNS = Number(process.env.CHECKPOINT_PROPERTY_RUNS) || 1500;

const NAMES = ['a', 'b', 'my-feature', 'x.y', 'z_9'];
const bullet = (name: string, summary = `${name} summary`): string => `- **${name}** (main, Nov 25) — ${summary}`;

interface Block {
  kind: 'heading' | 'para' | 'fence' | 'blank' | 'section' | 'frontMatter';
  lines: string[];
  /** Heading level. */
  level?: number;
  /** Section only: names of its bullets, whether it has the resume line. */
  names?: string[];
  resume?: boolean;
}

interface Doc {
  text: string;
  /** Offsets of the section (the generated checkpoint block), when there is one; `head`: its heading line. */
  section?: { start: number; end: number; names: string[]; resume: boolean; head: string };
  /** Offset just after the first level-one heading line (outside fences and front matter), and whether it had a line break. */
  firstHeading?: { start: number; end: number; bare: boolean };
  frontMatterEnd?: number;
}

const word = fc.constantFrom('Memory', 'Notes', 'Project', 'Other', 'Decisions', 'Checkpoints', 'Checkpoints #', 'Active Checkpoints', 'Résumé ✓');

const heading: fc.Arbitrary<Block> = fc
  .tuple(fc.integer({ min: 1, max: 3 }), word, fc.constantFrom('', ' ', '   '), fc.constantFrom('', ' #', ' ##'))
  // A second "## (Active) Checkpoints" heading, in any case at level 2 or 3, would be a second section.
  .map(([level, text, indent, close]) => ({
    kind: 'heading' as const,
    level,
    lines: [`${indent}${'#'.repeat(level)} ${level >= 2 && text.includes('Checkpoints') ? text.replace('Checkpoints', 'Checkpoint log') : text}${close}`],
  }));

const paraLine = fc.oneof(
  fc.constantFrom(
    'Some notes here.',
    'more text — with an em dash',
    '#hashtag is not a heading',
    '####### seven hashes is not a heading',
    '##Checkpoints without a space',
    '##Active Checkpoints without a space',
    '    ## Checkpoints (indented code)',
    '\t## Checkpoints (tab-indented code)',
    '> ## Checkpoints in a quote',
    '<!-- ## Checkpoints -->',
    RESUME_LINE,
    '- plain item',
    '* **starred** item',
    '- **Build**: run make first',
    'trailing spaces   ',
    '',
  ),
  fc.constantFrom(...NAMES).map((n) => bullet(n, 'look-alike written by the user')),
);

const para: fc.Arbitrary<Block> = fc.array(paraLine, { minLength: 1, maxLength: 4 }).map((lines) => ({ kind: 'para' as const, lines }));

const fenceContent = fc.constantFrom(
  '## Checkpoints',
  '# Heading in a fence',
  bullet('a', 'fenced'),
  bullet('fake', 'fenced'),
  RESUME_LINE,
  '---',
  '',
);

const fence = (closed: boolean): fc.Arbitrary<Block> =>
  fc
    .tuple(fc.constantFrom('```', '````', '~~~', '~~~~'), fc.constantFrom('', 'markdown', ' md'), fc.array(fenceContent, { maxLength: 4 }))
    .map(([f, info, body]) => ({ kind: 'fence' as const, lines: closed ? [`${f}${info}`, ...body, f] : [`${f}${info}`, ...body] }));

const blank: fc.Arbitrary<Block> = fc.constant({ kind: 'blank' as const, lines: [''] });

const section: fc.Arbitrary<Block> = fc
  .record({
    head: fc.constantFrom(
      '## Active Checkpoints',
      '## Active Checkpoints ##',
      '##  Active\tCheckpoints',
      // As Checkpoint 0.1.0 wrote it: read as the same section, its heading renamed at the next write.
      '## Checkpoints',
      '## Checkpoints  ',
      ' ## Checkpoints',
      '##\tCheckpoints',
      '## Checkpoints ##',
      '   ## Checkpoints',
    ),
    note: fc.boolean(),
    names: fc.uniqueArray(fc.constantFrom(...NAMES), { maxLength: 3 }),
    gap: fc.boolean(),
    resume: fc.boolean(),
  })
  .map(({ head, note, names, gap, resume }) => ({
    kind: 'section' as const,
    names,
    resume,
    lines: [head, ...(note ? ['My own note about checkpoints'] : []), ...names.map((n) => bullet(n)), ...(gap && resume ? [''] : []), ...(resume ? [RESUME_LINE] : [])],
  }));

const FRONT_MATTER = ['---', 'title: memory', '# a YAML comment, not a heading', '---'];

export const docArb: fc.Arbitrary<Doc> = fc
  .record({
    front: fc.boolean(),
    blocks: fc.array(fc.oneof(heading, para, fence(true), blank), { maxLength: 8 }),
    unclosedFence: fc.option(fence(false), { freq: 8 }),
    section: fc.option(section, { freq: 3 }),
    sectionAt: fc.nat(),
    separate: fc.array(fc.boolean(), { minLength: 12, maxLength: 12 }),
    eol: fc.constantFrom('\n', '\r\n', 'mixed'),
    mixed: fc.array(fc.boolean(), { minLength: 64, maxLength: 64 }),
    finalNewline: fc.boolean(),
  })
  .map((g) => {
    const blocks = [...g.blocks];
    if (g.section) blocks.splice(g.sectionAt % (blocks.length + 1), 0, g.section);
    if (g.front) blocks.unshift({ kind: 'frontMatter', lines: FRONT_MATTER });
    if (g.unclosedFence) blocks.push(g.unclosedFence);
    // Lines with their block, blank separators between some blocks.
    const lines: { text: string; block: Block | undefined }[] = [];
    blocks.forEach((b, i) => {
      if (i > 0 && g.separate[i % g.separate.length]) lines.push({ text: '', block: undefined });
      for (const text of b.lines) lines.push({ text, block: b });
    });
    let text = '';
    const doc: Doc = { text: '' };
    let sectionStart = -1;
    let sectionEnd = -1;
    let afterSection = false;
    lines.forEach((l, i) => {
      const eol = i === lines.length - 1 && !g.finalNewline ? '' : g.eol === 'mixed' ? (g.mixed[i % 64] ? '\r\n' : '\n') : g.eol;
      if (l.block?.kind === 'section' && sectionStart < 0) sectionStart = text.length;
      // Without its resume line, the section runs to the next heading (of any level).
      if (afterSection && sectionEnd < 0 && l.block?.kind === 'heading') sectionEnd = text.length;
      if (l.block?.kind === 'heading' && l.block.level === 1 && !doc.firstHeading) doc.firstHeading = { start: text.length, end: text.length + l.text.length + eol.length, bare: eol === '' };
      text += l.text + eol;
      if (l.block?.kind === 'section' && lines[i + 1]?.block !== l.block) {
        afterSection = true;
        if (l.block.resume) sectionEnd = text.length;
      }
      if (l.block?.kind === 'frontMatter' && lines[i + 1]?.block !== l.block) doc.frontMatterEnd = text.length;
    });
    doc.text = text;
    if (g.section && sectionStart >= 0) {
      doc.section = { start: sectionStart, end: sectionEnd < 0 ? text.length : sectionEnd, names: g.section.names!, resume: g.section.resume!, head: g.section.lines[0] };
    }
    return doc;
  });

const nameArb = fc.constantFrom(...NAMES, 'new-one');

/**
 * What a document without a section looks like after a section was inserted and removed again: the same, but for
 * a blank line after the heading it went after when a line of text followed it directly. The section stands
 * between two blank lines, and then nothing tells whether the second one was the user's.
 */
function afterRoundTrip(d: Doc): string {
  const at = d.firstHeading && !d.firstHeading.bare ? d.firstHeading.end : -1;
  const next = at >= 0 ? /^[^\r\n]*/.exec(d.text.slice(at))![0] : '';
  if (at < 0 || at >= d.text.length || next.trim() === '') return d.text;
  const eol = /\r?\n/.exec(d.text)![0];
  return d.text.slice(0, at) + eol + d.text.slice(at);
}

/** Splits a text at a line boundary into [all but the last line, last line]; the last line keeps its break. */
function lastLine(text: string): [string, string] {
  const m = /(?:^|\r\n|\n)([^\r\n]*(?:\r\n|\n)?)$/.exec(text);
  const last = m ? m[1] : text;
  return [text.slice(0, text.length - last.length), last];
}
function firstLine(text: string): [string, string] {
  const m = /^[^\r\n]*(?:\r\n|\n)?/.exec(text)!;
  return [m[0], text.slice(m[0].length)];
}

/**
 * Whether `out` is `original` with only lines of its section [start, end) taken out: the text before the section
 * and the text after it are kept, except for at most one blank line that separated the section (the design:
 * a new section is inserted after a blank line, and removing it takes that line again) and, when the file
 * ended without a line break, the line break that now would end it.
 */
function onlySectionLinesRemoved(original: string, start: number, end: number, out: string): boolean {
  const before = original.slice(0, start);
  const after = original.slice(end);
  const bare = original !== '' && !/\n$/.test(original);
  const [pre, preLast] = lastLine(before);
  const [postFirst, post] = firstLine(after);
  const befores = [before];
  if (/^[ \t]*\r?\n$/.test(preLast)) befores.push(pre);
  const afters = [after];
  if (/^[ \t]*\r?\n$/.test(postFirst)) afters.push(post);
  // The section's heading may come back renamed (`## Checkpoints` becomes `## Active Checkpoints`).
  const sectionLines = new Set([...original.slice(start, end).split(/\r?\n/), SECTION_HEADING]);
  for (let b of befores) {
    for (const a of afters) {
      if (bare && a === '') b = b.replace(/\r?\n$/, '');
      if (!out.startsWith(b) || !out.endsWith(a) || out.length < b.length + a.length) continue;
      // What is left between them are lines of the section (the user's own, kept).
      const middle = out.slice(b.length, out.length - a.length);
      if (middle.split(/\r?\n/).every((l) => l === '' || sectionLines.has(l))) return true;
    }
  }
  return false;
}

test('properties: the generator builds the documents it claims (sanity)', () => {
  fc.assert(
    fc.property(docArb, (d) => {
      if (d.section) {
        assert.match(d.text.slice(d.section.start), /^ {0,3}##[ \t]+(?:Active[ \t]+)?Checkpoints/);
        if (d.section.resume) assert.deepEqual(indexedNames(d.text), d.section.names);
      } else {
        assert.deepEqual(indexedNames(d.text), []);
      }
    }),
    { numRuns: RUNS },
  );
});

test('property: upsert changes no byte outside the section (or outside the inserted one)', () => {
  fc.assert(
    fc.property(docArb, nameArb, (d, name) => {
      const out = upsertIndex(d.text, name, bullet(name, 'fresh')).text;
      assert.ok(indexedNames(out).includes(name), 'the bullet is indexed');
      if (d.section) {
        const before = d.text.slice(0, d.section.start);
        const after = d.text.slice(d.section.end);
        assert.ok(out.startsWith(before), 'bytes before the section kept');
        assert.ok(out.endsWith(after), 'bytes after the section kept');
        assert.ok(out.length >= before.length + after.length);
      } else if (d.firstHeading && !d.firstHeading.bare) {
        // A new section goes right after the first heading line: everything before and after it is kept.
        const head = d.text.slice(0, d.firstHeading.end);
        const rest = d.text.slice(d.firstHeading.end);
        assert.ok(out.startsWith(head) && out.endsWith(rest), 'text around the inserted section kept');
        assert.match(out.slice(head.length), /^\r?\n## Active Checkpoints\r?\n/);
      } else if (d.firstHeading) {
        // The heading is the last line, without a line break: it gains one, and the file still ends bare.
        assert.ok(out.startsWith(d.text), 'the text before is kept');
        assert.doesNotMatch(out, /\n$/, 'a missing final newline stays missing');
      } else if (d.frontMatterEnd !== undefined) {
        const fm = d.text.slice(0, d.frontMatterEnd);
        assert.ok(out.startsWith(fm), 'front matter stays first');
        assert.ok(out.endsWith(d.text.slice(d.frontMatterEnd)), 'the rest is kept');
      } else {
        assert.ok(out.endsWith(d.text), 'no heading: the section goes first, the document follows unchanged');
      }
      if (d.text !== '') assert.equal(/\n$/.test(out), /\n$/.test(d.text), 'final-newline state kept');
      // New lines take the document's line ending: a CRLF-only document stays CRLF-only, an LF-only one LF-only.
      if (/\r\n/.test(d.text) && !/(^|[^\r])\n/.test(d.text)) assert.doesNotMatch(out, /(^|[^\r])\n/, 'CRLF kept');
      if (!d.text.includes('\r')) assert.ok(!out.includes('\r'), 'LF kept');
    }),
    { numRuns: RUNS },
  );
});

test('property: remove changes no byte outside the section', () => {
  fc.assert(
    fc.property(docArb, fc.oneof(fc.uniqueArray(nameArb, { minLength: 1, maxLength: 3 }), fc.constant('all' as const)), (d, names) => {
      const out = removeFromIndex(d.text, names);
      const left = indexedNames(out);
      if (names !== 'all') for (const n of names) assert.ok(!left.includes(n), `${n} removed`);
      if (!d.section) {
        assert.equal(out, d.text, 'no section: nothing changes');
        return;
      }
      assert.ok(onlySectionLinesRemoved(d.text, d.section.start, d.section.end, out), `only section lines went:\n${JSON.stringify(d.text)}\n→ ${JSON.stringify(out)}`);
    }),
    { numRuns: RUNS },
  );
});

test('property: upsert is idempotent; remove is idempotent', () => {
  fc.assert(
    fc.property(docArb, nameArb, fc.uniqueArray(nameArb, { minLength: 1, maxLength: 3 }), (d, name, names) => {
      const once = upsertIndex(d.text, name, bullet(name, 'fresh')).text;
      assert.equal(upsertIndex(once, name, bullet(name, 'fresh')).text, once, 'upsert twice = once');
      const removed = removeFromIndex(d.text, names);
      assert.equal(removeFromIndex(removed, names), removed, 'remove twice = once');
      const all = removeFromIndex(d.text, 'all');
      assert.equal(removeFromIndex(all, 'all'), all, 'remove all twice = once');
    }),
    { numRuns: RUNS },
  );
});

test('property: upsert then remove restores the original when the name was not there', () => {
  fc.assert(
    fc.property(docArb, nameArb, (d, name) => {
      fc.pre(!indexedNames(d.text).includes(name));
      // Upsert normalizes a section that is not in the spec's shape (no bullet, or no resume line) — inside the
      // section, which the spec allows; removing the bullet then cannot know what the section looked like before.
      fc.pre(!d.section || (d.section.names.length > 0 && d.section.resume));
      const out = upsertIndex(d.text, name, bullet(name, 'fresh')).text;
      // The write renamed a `## Checkpoints` heading: that is the one change left.
      const expected = d.section && !d.section.head.includes('Active')
        ? d.text.slice(0, d.section.start) + SECTION_HEADING + d.text.slice(d.section.start + d.section.head.length)
        : d.section
          ? d.text
          : afterRoundTrip(d);
      assert.equal(removeFromIndex(out, [name]), expected);
    }),
    { numRuns: RUNS },
  );
});

test('property: a section we created is removed whole by remove all, and nothing else goes', () => {
  fc.assert(
    fc.property(docArb, fc.uniqueArray(nameArb, { minLength: 1, maxLength: 3 }), (d, names) => {
      fc.pre(!d.section);
      let out = d.text;
      for (const n of names) out = upsertIndex(out, n, bullet(n, 'fresh')).text;
      assert.deepEqual(indexedNames(out), [...names].reverse(), 'newest first, and only ours');
      assert.equal(removeFromIndex(out, 'all'), afterRoundTrip(d));
    }),
    { numRuns: RUNS },
  );
});

test('property: a file with two checkpoint sections has one after any write, with every bullet of both', () => {
  fc.assert(
    fc.property(docArb, nameArb, fc.constantFrom('## Checkpoints', '## Active Checkpoints'), (d, name, head) => {
      fc.pre(d.section !== undefined && d.section.resume);
      const eol = d.text.includes('\r\n') ? '\r\n' : '\n';
      const second = ['', head, bullet('second-one'), bullet(d.section!.names[0] ?? 'x', 'dup'), '', RESUME_LINE, ''].join(eol);
      // Appended after the document (an unclosed fence at its end would make it text, not a section).
      const text = d.text.replace(/(\r?\n)?$/, eol) + second;
      fc.pre(indexedNames(text).includes('second-one'));
      const names = indexedNames(text);
      const out = upsertIndex(text, name, bullet(name, 'fresh')).text;
      assert.deepEqual(new Set(indexedNames(out)), new Set([...names, name]), 'every bullet kept');
      const all = removeFromIndex(out, 'all');
      assert.deepEqual(indexedNames(all), [], 'one section: remove all leaves none');
      assert.ok(!all.includes('second-one'));
    }),
    { numRuns: RUNS },
  );
});
