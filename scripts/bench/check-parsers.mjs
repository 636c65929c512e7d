// Differential check of the fast paths added for listing speed (see the optimizations in docs/PERFORMANCE.md):
//  1. parseFrontMatter's fast path for simple front matter vs gray-matter + js-yaml (the reference);
//  2. parseCheckpointHeader vs the header fields of parseCheckpoint;
//  3. isPlainFrontMatter (which lets parseCheckpoint skip zod) never accepts what FrontMatterSchema refuses or changes.
// Both must give the same values (and types: a timestamp is a Date), the same body and the same errors.
// Usage: npx tsc -p . && node scripts/bench/check-parsers.mjs [--runs N]
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { isDeepStrictEqual, parseArgs } from 'node:util';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const require = createRequire(import.meta.url);
const fc = require('fast-check');
const matter = require('gray-matter');
// Count the calls the core makes to gray-matter (its slow path) through a wrapper it will load lazily.
let slowCalls = 0;
require.cache[require.resolve('gray-matter')].exports = Object.assign((...args) => {
  slowCalls++;
  return matter(...args);
}, matter);
const { parseFrontMatter, yamlString } = require(join(root, 'out', 'src', 'core', 'frontMatter.js'));
const { isPlainFrontMatter, parseCheckpoint, parseCheckpointHeader } = require(join(root, 'out', 'src', 'core', 'checkpointParse.js'));
const { renderCheckpoint } = require(join(root, 'out', 'src', 'core', 'checkpointRender.js'));
const { FrontMatterSchema } = require(join(root, 'out', 'src', 'core', 'schemas.js'));
const { CheckpointError } = require(join(root, 'out', 'src', 'core', 'errors.js'));

const { values } = parseArgs({ options: { runs: { type: 'string', default: '20000' } } });
const numRuns = Number(values.runs);

// The reference: parseFrontMatter as it was, always through gray-matter.
const refuse = () => {
  throw new CheckpointError('front matter written in JavaScript is never executed; use YAML');
};
const SAFE = { engines: { js: { parse: refuse, stringify: refuse }, javascript: { parse: refuse, stringify: refuse }, coffee: { parse: refuse, stringify: refuse } }, excerpt: false };
function reference(text) {
  const src = text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
  if (!/^---/.test(src)) return { data: undefined, body: src };
  let parsed;
  try {
    parsed = matter(src, SAFE);
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(`invalid front matter: ${err instanceof Error ? err.message.split('\n')[0] : String(err)}`);
  }
  const data = parsed.data;
  if (data === null || typeof data !== 'object' || Array.isArray(data)) throw new CheckpointError('invalid front matter: expected key: value pairs');
  const has = parsed.matter !== undefined && src !== parsed.content;
  return { data: has ? data : undefined, body: parsed.content };
}

const outcome = (fn) => {
  try {
    return { ok: fn() };
  } catch (err) {
    return { err: `${err?.constructor?.name}: ${err?.message}` };
  }
};
// Dates compare by time; isDeepStrictEqual also checks prototypes (a Date is never equal to a string).
const same = (a, b) => isDeepStrictEqual(a, b);

const tricky = [
  '', ' ', 'a', 'main', 'feature/x', 'a b', 'a  b', 'trailing ', ' leading', 'true', 'True', 'TRUE', 'false', 'null', 'Null', 'NULL', '~', 'yes', 'no', 'on', 'off',
  '0', '7', '007', '12', '1e5', '0x1f', '0o17', '0b101', '1_000', '.5', '.inf', '-.inf', '.nan', '+1', '-1', '3.14', '12:30', '1:20:30',
  '2025-01-01', '2025-01-01T00:00:00Z', '2025-01-01T00:00:00.000Z', '2025-13-45T25:61:61Z', '2025-01-01T10:00:00.1234567Z', '2025-01-01t10:00:00Z', '2025-01-01 10:00:00', '0050-01-01T00:00:00.000Z', '0000-00-00T00:00:00Z', '1969-12-31T23:59:59.999Z', '2025-02-30T00:00:00.5Z',
  'a: b', 'a:b', 'a #b', 'a#b', '#x', '"q"', "'q'", 'x"y', "x'y", '\\', 'a\\nb', '[a]', '{a}', 'a, b', '@x', '`x`', '!x', '&x', '*x', '|', '>', '%x', '?x', '-x', '--', '---', '...',
  'é', 'naïve café', 'ü/ö', '—', 'a — b', '日本', '😀', 'a😀b', '\ud800', '\udc00x', '\u0085', '\u2028', '\u00a0', '\ufeff', '\t', 'a\tb', '\x7f', '\x01', 'a\rb', 'a\nb',
  '__proto__', 'constructor', 'toString', '/abs/path.md', '_x', 'x_', 'C:\\dir', '<<', '=', 'a=b', '(x)', 'x~y', 'a+b', 'a.b', 'a,b',
];
const key = fc.constantFrom('name', 'description', 'type', 'branch', 'saved', 'plan', 'planStep', 'planSteps', 'other', 'x_1', 'True', 'null', '__proto__', 'constructor', 'a b', '1a', 'Name');
const rawValue = fc.oneof(
  fc.constantFrom(...tricky),
  fc.string(),
  fc.string({ unit: 'binary' }),
  fc.integer({ min: -5, max: 1e16 }).map(String),
  fc.date({ min: new Date(-1e13), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
);
// As written by yamlString (the writer), JSON-quoted, or raw.
const value = fc.oneof(
  { weight: 6, arbitrary: rawValue.map((v) => yamlString(v)) },
  { weight: 2, arbitrary: rawValue.map((v) => JSON.stringify(v)) },
  { weight: 2, arbitrary: rawValue },
  { weight: 1, arbitrary: rawValue.map((v) => `"${v}"`) },
);
const fmLine = fc.oneof(
  { weight: 30, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}: ${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}:  ${v}`) },
  { weight: 1, arbitrary: fc.tuple(key, value).map(([k, v]) => `${k}:${v}`) },
  { weight: 1, arbitrary: fc.constantFrom('', '# comment', '  indented: x', '- item', 'key:', 'a: [1, 2]', 'b: {c: 1}', 'c: |', '  block', '...', '---x') },
);
const bodyLine = fc.oneof(
  fc.constantFrom('# Checkpoint: x', '## Left Off', 'left off text', '## Modified Files', '- a.ts', '- **Branch:** `main`', '- **Saved:** 2025-01-02 10:00', '- **Plan:** `p.md` (step 2 of 5)', '* **plan** other.md', 'mentions **Plan** here', '```', '---', '--- ', ''),
  fc.string(),
);
const doc = fc
  .tuple(
    fc.oneof({ weight: 12, arbitrary: fc.constant('---\n') }, fc.constantFrom('---\r\n', '----\n', '---yaml\n', '--- \n', '\ufeff---\n', '---')),
    fc.array(fmLine, { maxLength: 6 }),
    fc.oneof({ weight: 12, arbitrary: fc.constant('\n---\n') }, fc.constantFrom('\n---\r\n', '\n---', '\n----\n', '\n--- x\n', '\n...\n', '')),
    fc.array(bodyLine, { maxLength: 8 }),
    fc.constantFrom('\n', '\r\n'),
  )
  .map(([open, fm, close, body, eol]) => `${open}${fm.join(eol)}${close}${body.join(eol)}`);

// Documents as the extension writes them (rendered by the core), so the common shape is covered densely.
const checkpoint = fc
  .record({
    name: fc.oneof(fc.constantFrom(...tricky), fc.string()).map((s) => s.toLowerCase().replace(/[^a-z0-9._-]/g, '') || 'x'),
    description: fc.oneof(fc.constantFrom(...tricky), fc.string()),
    branch: fc.oneof(fc.constantFrom(...tricky), fc.string()),
    saved: fc.date({ min: new Date(0), max: new Date(4e12), noInvalidDate: true }).map((d) => d.toISOString()),
    leftOff: fc.string(),
    done: fc.array(fc.string(), { maxLength: 3 }),
    failed: fc.array(fc.string(), { maxLength: 2 }),
    decisions: fc.array(fc.string(), { maxLength: 2 }),
    questions: fc.array(fc.string(), { maxLength: 2 }),
    modifiedFiles: fc.array(fc.string(), { maxLength: 3 }),
    plan: fc.option(fc.oneof(fc.constantFrom(...tricky), fc.string()), { nil: undefined }),
    planStep: fc.option(fc.nat(20), { nil: undefined }),
    planSteps: fc.option(fc.nat(20), { nil: undefined }),
  })
  .map((cp) => {
    const c = { ...cp };
    for (const k of ['plan', 'planStep', 'planSteps']) if (c[k] === undefined) delete c[k];
    return renderCheckpoint(c);
  });

function checkFrontMatter(text) {
  const got = outcome(() => parseFrontMatter(text));
  const want = outcome(() => reference(text));
  if (!same(got, want)) throw new Error(`parseFrontMatter differs for ${JSON.stringify(text)}:\n got  ${fmt(got)}\n want ${fmt(want)}`);
}
function checkHeader(text) {
  const got = outcome(() => parseCheckpointHeader(text, 'fallback', '2020-01-01T00:00:00.000Z'));
  const want = outcome(() => {
    const cp = parseCheckpoint(text, 'fallback', '2020-01-01T00:00:00.000Z');
    const h = { name: cp.name, description: cp.description, branch: cp.branch, saved: cp.saved };
    if (cp.plan) h.plan = cp.plan;
    if (cp.planStep !== undefined) h.planStep = cp.planStep;
    if (cp.planSteps !== undefined) h.planSteps = cp.planSteps;
    return h;
  });
  // parseCheckpointHeader may return the whole checkpoint on its slow path: compare the header fields.
  if (got.ok) {
    const h = { name: got.ok.name, description: got.ok.description, branch: got.ok.branch, saved: got.ok.saved };
    if (got.ok.plan) h.plan = got.ok.plan;
    if (got.ok.planStep !== undefined) h.planStep = got.ok.planStep;
    if (got.ok.planSteps !== undefined) h.planSteps = got.ok.planSteps;
    got.ok = h;
  }
  if (!same(got, want)) throw new Error(`parseCheckpointHeader differs for ${JSON.stringify(text)}:\n got  ${fmt(got)}\n want ${fmt(want)}`);
}
const fmt = (o) => JSON.stringify(o, (k, v) => (v instanceof Date ? `Date(${v.getTime()})` : v));

for (const [name, arb] of [['generated documents', doc], ['rendered checkpoints', checkpoint]]) {
  let fast = 0;
  fc.assert(
    fc.property(arb, (text) => {
      const before = slowCalls;
      const fm = outcome(() => parseFrontMatter(text));
      if (slowCalls === before && fm.ok?.data) fast++;
      checkFrontMatter(text);
      checkHeader(text);
    }),
    { numRuns },
  );
  console.log(`${name}: ${numRuns} cases agree (${fast} took the fast path)`);
}

// 3. isPlainFrontMatter ⇒ FrontMatterSchema accepts the data and gives the same known fields.
const anyValue = fc.oneof(
  fc.string(),
  fc.double(),
  fc.integer(),
  fc.constantFrom(0, -0, -1, 1.5, 2 ** 53, 2 ** 53 + 2, NaN, Infinity, -Infinity, null, undefined, true, false, '', '2025-01-01'),
  fc.date(),
  fc.constant(new Date(NaN)),
  fc.array(fc.string(), { maxLength: 2 }),
  fc.object({ maxDepth: 1 }),
);
const KNOWN = ['name', 'description', 'type', 'branch', 'saved', 'plan', 'planStep', 'planSteps'];
const frontMatterData = fc.dictionary(fc.constantFrom(...KNOWN, 'other', '__proto__', 'constructor'), anyValue, { maxKeys: 9 });
let plain = 0;
fc.assert(
  fc.property(frontMatterData, (data) => {
    if (!isPlainFrontMatter(data)) return;
    plain++;
    const r = FrontMatterSchema.safeParse(data);
    if (!r.success) throw new Error(`isPlainFrontMatter accepts what the schema refuses: ${fmt(data)}`);
    for (const k of KNOWN) if (!Object.is(r.data[k], data[k])) throw new Error(`the schema changes ${k} of ${fmt(data)}`);
  }),
  { numRuns },
);
console.log(`front-matter data: ${numRuns} cases agree (${plain} skip zod)`);
