// The corpus of agent-written files (test/fixtures/agent-written): checkpoint files as the session-checkpoint skill
// writes them, under the loose names it allows, and MEMORY.md indexes as the skill and Checkpoint 0.1.0 wrote them.
import { copyFileSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';

export const CORPUS_DIR = path.resolve(__dirname, '..', '..', '..', 'test', 'fixtures', 'agent-written');

interface Manifest {
  checkpoints: Record<string, string>;
  indexes: string[];
}

const manifest = (): Manifest => JSON.parse(readFileSync(path.join(CORPUS_DIR, 'corpus.json'), 'utf8')) as Manifest;

/** The checkpoint names of the corpus, as their files spell them (`fix:-login`, `café-menu`, `My Feature`, …). */
export const CORPUS_NAMES: string[] = Object.values(manifest().checkpoints);

/** The MEMORY.md variants: `skill.md`, `v0.1.0.md`, `both.md`, `shapes.md`, `agent-shapes.md`. */
export const CORPUS_INDEXES: string[] = manifest().indexes;

/** The text of an index variant; `crlf`: with CRLF line endings; `bare`: without its final line break. */
export function corpusIndex(name: string, opts: { crlf?: boolean; bare?: boolean } = {}): string {
  let text = readFileSync(path.join(CORPUS_DIR, 'indexes', name), 'utf8');
  if (opts.bare) text = text.replace(/\n$/, '');
  if (opts.crlf) text = text.replace(/\n/g, '\r\n');
  return text;
}

/** The text of a corpus checkpoint by its name. */
export function corpusCheckpoint(name: string): string {
  const entry = Object.entries(manifest().checkpoints).find(([, n]) => n === name);
  if (!entry) throw new Error(`no corpus checkpoint named ${name}`);
  return readFileSync(path.join(CORPUS_DIR, 'checkpoints', entry[0]), 'utf8');
}

/**
 * Puts the corpus into a memory folder: each checkpoint as `checkpoint-<its name>.md`, the index variant `index`
 * (if any) as MEMORY.md; and the plans into `<home>/.claude/plans/`, where their `~/` paths lead.
 * Returns the MEMORY.md text written.
 */
export function installCorpus(memDir: string, home: string, opts: { index?: string; crlf?: boolean; bare?: boolean } = {}): string | undefined {
  mkdirSync(memDir, { recursive: true });
  for (const [source, name] of Object.entries(manifest().checkpoints)) {
    copyFileSync(path.join(CORPUS_DIR, 'checkpoints', source), path.join(memDir, `checkpoint-${name}.md`));
  }
  const plans = path.join(home, '.claude', 'plans');
  mkdirSync(plans, { recursive: true });
  for (const f of readdirSync(path.join(CORPUS_DIR, 'plans'))) copyFileSync(path.join(CORPUS_DIR, 'plans', f), path.join(plans, f));
  if (!opts.index) return undefined;
  const text = corpusIndex(opts.index, opts);
  writeFileSync(path.join(memDir, 'MEMORY.md'), text);
  return text;
}

/**
 * The text of a MEMORY.md around its checkpoint section(s): what precedes the first section heading and what
 * follows the last resume line. An index write must keep both byte for byte.
 */
export function outsideSections(text: string): { before: string; after: string } {
  const heading = SECTION_HEADING_RE.exec(text);
  if (!heading) return { before: text, after: '' };
  const resume = /^Resume any: .*(?:\r?\n)?/gm;
  let end = heading.index;
  for (let m = resume.exec(text); m; m = resume.exec(text)) end = m.index + m[0].length;
  return { before: text.slice(0, heading.index), after: text.slice(end) };
}

/** A checkpoint section's heading as agents spell it: any case, level 2 or 3 (`### Active checkpoints`). */
const SECTION_HEADING_RE = /^#{2,3} (?:Active )?Checkpoints\r?$/im;

/** How many checkpoint sections (`## Active Checkpoints`, `## Checkpoints`, in any case at level 2 or 3) a MEMORY.md has. */
export function sectionCount(text: string): number {
  return (text.match(new RegExp(SECTION_HEADING_RE.source, 'gim')) ?? []).length;
}
