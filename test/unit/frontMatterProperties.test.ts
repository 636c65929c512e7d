// Differential property test of the front-matter reader (src/core/frontMatter.ts): whatever path it takes (its
// own fast path for simple blocks, or gray-matter + js-yaml), it must read exactly what gray-matter + js-yaml read,
// and fail where they fail. Checkpoint files come from anywhere (agents, other tools, cloned repositories).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import fc from 'fast-check';
import { parseFrontMatter } from '../../src/core/frontMatter';

const matter = require('gray-matter') as (s: string, o: object) => { data: unknown; content: string; matter?: string };

/** Generated front-matter blocks per run. */
export const FRONT_MATTER_RUNS = Number(process.env.CHECKPOINT_PROPERTY_RUNS) || 3000;

const keys = fc.constantFrom('name', 'description', 'type', 'branch', 'saved', 'plan', 'planStep', 'planSteps', 'other', 'Name', 'x_y', 'true', 'Null', 'constructor', '__proto__', 'toString');
const tricky = fc.constantFrom(
  'checkpoint', 'feature/oauth', 'main', 'true', 'False', 'NULL', 'null', '~', 'yes', 'no', 'on', 'off', 'y', 'n', 'NaN', '.nan', '.inf', '-.inf',
  '0', '7', '007', '010', '09', '-1', '+1', '1.5', '1e3', '0x1A', '0o17', '1_000', '123456789012345', '1234567890123456', '2026-11-25T21:40:00.000Z',
  '2026-11-25T21:40:00Z', '2026-11-25T21:40:00.123456789Z', '2026-11-25 21:40:00', '2026-11-25', '2026-13-45T99:99:99Z', '12:30',
  'a: b', 'a #b', 'a#b', '#comment', 'trailing ', ' leading', 'a  b', 'a, b', '(x)', '[x]', '{x: 1}', '&anchor', '*alias', '!tag', '!!str x',
  '|', '>', '%x', '@x', '`x`', "'single'", '"double"', '"esc \\" ok"', '"\\u00e9"', '"\\x41"', '"\\a"', '"\\/"', '"\\ud83d\\ude80"', '"a\\tb"',
  'é', '🚀 rocket', 'C:\\path', '/abs/path.md', '~/plans/x.md', 'a/b/c', '-', '- item', '? q', 'x\u2028y', 'x\u00a0y', 'x\u0085y', '"',
);
const chars = fc.constantFrom(...'aZ09 _-./:#"\'\\,()[]{}&*!|>%@`~+é🚀\t'.split(''), '\u00a0', '\u2028');
/** Mostly what the fast path takes (plain words, with the odd space, digit or sign), so that it is exercised hard. */
const plainChars = fc.constantFrom(...'abcXYZ019 _.,/~@+()-#:'.split(''));
const plainish = fc.tuple(fc.constantFrom('a', 'Z', '_', '/', 'x'), fc.string({ unit: plainChars, maxLength: 10 })).map(([a, b]) => a + b);
const value = fc.oneof(
  { weight: 4, arbitrary: tricky },
  { weight: 4, arbitrary: plainish },
  { weight: 2, arbitrary: fc.string({ unit: chars, minLength: 1, maxLength: 12 }) },
  { weight: 2, arbitrary: fc.string({ unit: chars, maxLength: 10 }).map((s) => JSON.stringify(s)) },
);
const line = fc.oneof({ weight: 8, arbitrary: fc.tuple(keys, value).map(([k, v]) => `${k}: ${v}`) }, { weight: 1, arbitrary: fc.constantFrom('', '# comment', '  indented: x', 'key:value', 'key:  two spaces', '- list item') });

const doc = fc
  .record({
    lines: fc.array(line, { minLength: 0, maxLength: 6 }),
    eol: fc.constantFrom('\n', '\n', '\n', '\r\n'),
    close: fc.constantFrom('---', '---\n', '--- ', '...'),
    body: fc.constantFrom('', '# Checkpoint: x\n## Left Off\nhere\n', '\n\nbody', '\r\nbody\r\n'),
    open: fc.constantFrom('---', '---', '---', '---', '---', '--- ', '----'),
  })
  .map(({ lines, eol, close, body, open }) => `${open}${eol}${lines.map((l) => l + eol).join('')}${close}${body}`);
/** Some documents of one or two lines only, where a single odd value decides. */
const small = fc
  .tuple(fc.array(fc.tuple(keys, value).map(([k, v]) => `${k}: ${v}\n`), { minLength: 1, maxLength: 2 }), fc.constantFrom('', '# Checkpoint: x\n'))
  .map(([lines, body]) => `---\n${lines.join('')}---\n${body}`);

type Outcome = { ok: true; data: unknown; body: string } | { ok: false };

function reference(text: string): Outcome {
  try {
    const r = matter(text, { excerpt: false, engines: {} });
    const data = r.data;
    if (data === null || typeof data !== 'object' || Array.isArray(data)) return { ok: false };
    const has = r.matter !== undefined && text !== r.content;
    return { ok: true, data: has ? data : undefined, body: r.content };
  } catch {
    return { ok: false };
  }
}

function ours(text: string): Outcome {
  try {
    const r = parseFrontMatter(text);
    return { ok: true, data: r.data, body: r.body };
  } catch {
    return { ok: false };
  }
}

test('property: the front-matter reader reads what gray-matter + js-yaml read, and fails where they fail', () => {
  fc.assert(
    fc.property(fc.oneof(doc, small), (text) => {
      const want = reference(text);
      const got = ours(text);
      assert.equal(got.ok, want.ok, `accepts iff gray-matter does: ${JSON.stringify(text)}`);
      if (got.ok && want.ok) {
        assert.deepStrictEqual(got.data, want.data, JSON.stringify(text));
        assert.equal(got.body, want.body);
      }
    }),
    { numRuns: FRONT_MATTER_RUNS },
  );
});
