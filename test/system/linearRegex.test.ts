// Every regex that sees file or user text runs in linear time (issue: a body line `# a` + 1,000,000 spaces + `b`
// made `show` run for an hour on 0.1.0, commit 7104910). Nothing here is timed: work is counted.
//
// V8 counts the backtracks of each regex execution. Run with `--enable-experimental-regexp-engine-on-excessive-
// backtracks --regexp-backtracks-before-fallback=B --trace-experimental-regexp-engine`, an execution that needs more
// than B backtracks falls back to V8's linear-time engine and prints "Experimental execution … <regex source>". A
// linear regex needs at most a few backtracks per input character; a quadratic one needs about n²/2. So: generated
// hostile inputs (a prefix, a short piece repeated to N characters, a suffix) go through every regex literal of
// src/ and through every exported function that parses or writes text, at N and at 10 × N characters, with a
// budget of BACKTRACKS_PER_CHAR × N backtracks; no execution may exceed it.
//
// The fallback exists only for regexes V8's linear engine can run, so a first test checks that every regex literal
// in src/ is one (no lookaround, no backreference, no large counted repetition; the `i` flag is tested without it,
// as the engine of Node 20 does not take it: case folding does not change how a pattern backtracks).
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as ts from 'typescript';
import { tempDirs } from '../support/fixtures';

const temp = tempDirs();

const ROOT = path.resolve(__dirname, '..', '..', '..');
/** Characters of input per budget unit; inputs are N and 10 × N characters long. */
const N = 2000;
const BACKTRACKS_PER_CHAR = 6;
/** Generated inputs at N characters, and at 10 × N (CHECKPOINT_PROPERTY_RUNS for more). */
const RUNS = Number(process.env.CHECKPOINT_PROPERTY_RUNS) || 120;
const RUNS_LARGE = Math.ceil(RUNS / 4);

interface Literal {
  file: string;
  line: number;
  source: string;
  flags: string;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) =>
    e.isDirectory() ? sourceFiles(path.join(dir, e.name)) : e.name.endsWith('.ts') ? [path.join(dir, e.name)] : [],
  );
}

/** Every regex literal in src/, and every `new RegExp(…)` / `RegExp(…)` (which this test cannot see into). */
function regexLiterals(): { literals: Literal[]; constructed: string[] } {
  const literals: Literal[] = [];
  const constructed: string[] = [];
  for (const file of sourceFiles(path.join(ROOT, 'src'))) {
    const sf = ts.createSourceFile(file, readFileSync(file, 'utf8'), ts.ScriptTarget.ES2022, true);
    const rel = path.relative(ROOT, file);
    const visit = (node: ts.Node): void => {
      if (node.kind === ts.SyntaxKind.RegularExpressionLiteral) {
        const text = node.getText(sf);
        const slash = text.lastIndexOf('/');
        literals.push({ file: rel, line: sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1, source: text.slice(1, slash), flags: text.slice(slash + 1) });
      } else if ((ts.isNewExpression(node) || ts.isCallExpression(node)) && ts.isIdentifier(node.expression) && node.expression.text === 'RegExp') {
        constructed.push(`${rel}:${sf.getLineAndCharacterOfPosition(node.getStart(sf)).line + 1}`);
      }
      ts.forEachChild(node, visit);
    };
    visit(sf);
  }
  return { literals, constructed };
}

test('every regex in src/ is a literal that V8 can run in linear time (so the backtrack budget below sees it)', () => {
  const { literals, constructed } = regexLiterals();
  assert.ok(literals.length > 30, `found ${literals.length} regex literals`);
  assert.deepEqual(constructed, [], 'regexes built at run time cannot be audited here: use a literal');
  const dir = temp('checkpoint-regex-');
  const list = path.join(dir, 'list.json');
  writeFileSync(list, JSON.stringify(literals));
  const r = spawnSync(
    process.execPath,
    [
      '--enable-experimental-regexp-engine',
      '-e',
      `const list = JSON.parse(require('fs').readFileSync(process.argv[1], 'utf8'));
       for (const r of list) {
         try { new RegExp(r.source, r.flags.replace('i', '') + 'l'); }
         catch (e) { console.log(r.file + ':' + r.line + ' /' + r.source + '/' + r.flags + ' — ' + e.message); }
       }`,
      list,
    ],
    { encoding: 'utf8' },
  );
  assert.equal(r.status, 0, r.stderr);
  assert.equal(r.stdout.trim(), '', 'regexes outside the linear-time fragment');
});

/** The child: applies every literal and every text function to generated inputs of `size` characters. */
const CHILD = String.raw`
const fs = require('fs');
const path = require('path');
const [listFile, outDir, sizeText, runsText, seedText] = process.argv.slice(1);
const size = +sizeText, runs = +runsText, seed = +seedText;
const fc = require(require.resolve('fast-check', { paths: [outDir] }));
const literals = JSON.parse(fs.readFileSync(listFile, 'utf8'));
const load = (rel) => { try { return require(path.join(outDir, 'src', rel)); } catch { return {}; } };
const checkpoint = { ...load('core/checkpoint'), ...load('core/checkpointParse'), ...load('core/checkpointRender') };
const index = load('core/memoryIndex'), fm = load('core/frontMatter');
const plans = load('core/plans'), names = load('core/names'), gitDir = load('core/gitDir'), git = load('core/git');
const json = load('core/jsonCheckpoints'), resume = load('core/resumeText'), form = load('core/saveForm');
const dates = load('core/dates'), escaping = load('core/escaping'), markdown = load('editor/markdown');
const call = (f, ...args) => { if (typeof f !== 'function') return; try { f(...args); } catch {} };
const cpOf = (s) => ({ name: 'x', description: s, branch: s, saved: '2026-11-20T10:00:00.000Z', plan: s, planStep: 1, planSteps: 2,
  leftOff: s, done: [s], failed: [s], decisions: [s], questions: [s], modifiedFiles: [s] });
const fileOf = (s) => '---\nname: x\ndescription: d\ntype: checkpoint\nbranch: main\nsaved: 2026-11-20T10:00:00.000Z\n---\n# Checkpoint: x\n- **Branch:** ' + s + '\n- **Plan:** ' + s + '\n## Left Off\n' + s + '\n## ' + s + '\n' + s + '\n## Done This Session\n- ' + s + '\n';
const functions = [
  (s) => call(checkpoint.parseCheckpoint, s, 'x'),
  (s) => call(checkpoint.parseCheckpoint, fileOf(s), 'x'),
  (s) => call(checkpoint.parseCheckpoint, fileOf(s).replace(/^---[^]*?\n---\n/, ''), 'x'),
  (s) => call(checkpoint.parseCheckpointHeader, fileOf(s), 'x'),
  (s) => call(checkpoint.renderCheckpoint, cpOf(s)),
  (s) => call(checkpoint.describe, s),
  (s) => call(checkpoint.oneLine, s),
  (s) => call(index.formatBullet, cpOf(s)),
  (s) => call(index.upsertIndex, s, 'x', '- **x** (main, Nov 20) — d'),
  (s) => call(index.upsertIndex, '# M\n\n## Checkpoints\n' + s + '\n', 'x', '- **x** (main, Nov 20) — d'),
  (s) => call(index.removeFromIndex, s, 'all'),
  (s) => call(index.removeFromIndex, '# M\n\n## Checkpoints\n' + s + '\n', ['x']),
  (s) => call(index.indexedNames, s),
  (s) => call(fm.parseFrontMatter, '---\n' + s + '\n---\nbody'),
  (s) => call(fm.parseFrontMatter, '---\nname: ' + s + '\n---\nbody'),
  (s) => call(fm.parseFrontMatter, s),
  (s) => call(fm.yamlString, s),
  (s) => call(plans.planProgress, s),
  (s) => call(names.sanitizeName, s),
  (s) => call(names.printable, s, 1e9),
  (s) => call(gitDir.gitDirOfFile, s),
  (s) => call(git.parseStatusV2, s),
  (s) => call(json.parseJsonCheckpoint, JSON.stringify({ summary: s, next_action: s, decisions: [s] }), 'x', undefined, '2026-11-20T10:00:00.000Z'),
  (s) => call(resume.resumeSummary, cpOf(s), { currentBranch: 'main' }),
  (s) => call(resume.resumePrompt, cpOf(s), { currentBranch: 'main' }),
  (s) => call(resume.branchWarning, s, 'main'),
  (s) => call(form.splitItems, s),
  (s) => call(form.suggestName, { plan: s, branch: s }),
  (s) => call(form.previewName, s),
  (s) => call(dates.parseLocalDateTime, s),
  (s) => call(escaping.terminalText, s),
  (s) => call(escaping.shellQuote, s),
  (s) => call(markdown.inlineCode, s),
  (s) => call(markdown.escapeMarkdown, s),
];
const regexes = literals.map((r) => new RegExp(r.source, r.flags.replace('i', '')));
const applyLiterals = (s) => {
  for (const re of regexes) {
    if (re.global || re.sticky) { re.lastIndex = 0; s.replace(re, ''); re.lastIndex = 0; }
    else { re.exec(s); for (const line of s.split('\n')) re.exec(line); }
  }
};
// Characters the patterns care about: white space of every kind, Markdown and YAML punctuation, words they look for.
const unit = fc.constantFrom(' ', ' ', '\t', '\n', '\r', '\r\n', '\u2028', '\u0085', '\u000b', '#', '*', '**', '` + '`' + String.raw`', '~', '-', '_', ':', '.', '(', ')',
  '[', ']', '[x]', '"', "'", '\\', '=', '@', '{', '}', '<', '>', '!', '|', 'a', 'x', 'A', '1', '0', 'é', '✓', '\u001b',
  'step ', ' of ', 'all ', 'Checkpoint:', 'Checkpoints', 'gitdir:', '---', '- ', '- **', '## ', '# ', 'Resume any:', '~~', '1. ', 'T', 'Z');
const piece = (min, max) => fc.array(unit, { minLength: min, maxLength: max }).map((a) => a.join(''));
const inputs = fc.sample(fc.tuple(piece(0, 4), piece(1, 3), piece(0, 4)), { numRuns: runs, seed })
  .map(([prefix, pump, suffix]) => prefix + pump.repeat(Math.ceil(size / pump.length)) + suffix);
// The reported attacks, and the classic shapes, whatever the generator draws.
const spaces = ' '.repeat(size);
inputs.push('# a' + spaces + 'b', 'a' + spaces + 'b', 'a' + ' \n'.repeat(size / 2) + 'b', 'gitdir: a' + spaces + 'b', '## x' + '#'.repeat(size) + 'y',
  '- **' + '*a'.repeat(size / 2), 'step' + spaces + '1' + spaces + 'x', '~~' + '~~ '.repeat(size / 3), '\t'.repeat(size) + '#');
for (const s of inputs) {
  applyLiterals(s);
  for (const f of functions) f(s);
}
console.log('checked ' + inputs.length + ' inputs of ' + size + '+ characters, ' + regexes.length + ' literals, ' + functions.length + ' functions');
`;

/** Runs the child at `size` characters with a budget of BACKTRACKS_PER_CHAR × size; the executions over budget. */
function overBudget(size: number, seed: number): { over: string[]; summary: string } {
  const dir = temp('checkpoint-regex-');
  const list = path.join(dir, 'list.json');
  writeFileSync(list, JSON.stringify(regexLiterals().literals));
  const r = spawnSync(
    process.execPath,
    [
      '--enable-experimental-regexp-engine-on-excessive-backtracks',
      `--regexp-backtracks-before-fallback=${BACKTRACKS_PER_CHAR * size}`,
      '--trace-experimental-regexp-engine',
      '-e',
      CHILD,
      list,
      path.join(ROOT, 'out'),
      String(size),
      String(size > N ? RUNS_LARGE : RUNS),
      String(seed),
    ],
    { encoding: 'utf8', maxBuffer: 64 * 1024 * 1024 },
  );
  assert.equal(r.status, 0, r.stderr);
  const lines = r.stdout.split('\n');
  const over = [...new Set(lines.filter((l) => l.startsWith('Experimental execution')).map((l) => l.replace(/^.*?<String\[\d+\]: /, '').replace(/>$/, '')))];
  return { over, summary: lines.find((l) => l.startsWith('checked')) ?? r.stdout.slice(-500) };
}

for (const size of [N, 10 * N]) {
  test(`no regex needs more than ${BACKTRACKS_PER_CHAR} backtracks per character on hostile inputs of ${size} characters`, () => {
    const seed = Number(process.env.CHECKPOINT_PROPERTY_SEED) || Date.now() % 1e9;
    const { over, summary } = overBudget(size, seed);
    assert.match(summary, /^checked \d+ inputs/);
    assert.deepEqual(over, [], `regexes over the backtrack budget (seed ${seed}): ${over.join('  |  ')}`);
  });
}
