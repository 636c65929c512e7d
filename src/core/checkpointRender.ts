/** A checkpoint written as its file: the YAML front matter and the Markdown body agents read. */
import { formatLocalDateTime } from './dates';
import { yamlString } from './frontMatter';
import { escapeControls, oneLine, splitAnyLines } from './escaping';
import { isObjectId, NO_BRANCH, NONE, type Checkpoint } from './checkpoint';
import { renderSources } from './checkpointSources';
import { formatStep } from './wording';

/** The lines of Left Off as written: split at every kind of line break, control characters escaped, blanks dropped. */
function leftOffLines(leftOff: string): string[] {
  return splitAnyLines(leftOff)
    .map((l) => escapeControls(l.trimEnd()))
    .filter((l) => l.trim() !== '');
}

/** Keeps a user line from being read as a heading when the file is parsed again. */
function escapeLine(line: string): string {
  return /^\s*#/.test(line) ? `\\${line.trimStart()}` : line;
}

function renderList(items: string[]): string[] {
  const clean = items.map(oneLine).filter((i) => i !== '');
  return clean.length ? clean.map((i) => `- ${i}`) : [NONE];
}

/** Renders a checkpoint file: YAML front matter and the Markdown body agents read. */
export function renderCheckpoint(cp: Checkpoint): string {
  return `${renderFrontMatter(cp).join('\n')}\n${renderCheckpointBody(cp)}`;
}

function renderFrontMatter(cp: Checkpoint): string[] {
  const fm = [
    '---',
    `name: ${yamlString(cp.name)}`,
    `description: ${yamlString(cp.description)}`,
    'type: checkpoint',
    `branch: ${yamlString(cp.branch)}`,
    `saved: ${new Date(cp.saved).toISOString()}`,
  ];
  if (cp.auto) fm.push('auto: true');
  if (cp.session) fm.push(`session: ${yamlString(cp.session)}`);
  if (cp.plan) {
    fm.push(`plan: ${yamlString(cp.plan)}`);
    if (cp.planStep !== undefined && cp.planSteps !== undefined) fm.push(`planStep: ${cp.planStep}`, `planSteps: ${cp.planSteps}`);
  }
  if (cp.sources?.length) fm.push(`sources: [${cp.sources.map((src) => flowScalar(src.name)).join(', ')}]`);
  // Object ids are always quoted: one of digits only would read back as a number.
  if (isObjectId(cp.head)) fm.push(`head: "${cp.head}"`);
  if (isObjectId(cp.snapshot)) fm.push(`snapshot: "${cp.snapshot}"`);
  if (cp.snapshotSkipped) fm.push(`snapshotSkipped: ${yamlString(oneLine(cp.snapshotSkipped))}`);
  if (cp.snapshotLeftOut?.length) fm.push(`snapshotLeftOut: [${cp.snapshotLeftOut.map((f) => flowScalar(oneLine(f))).join(', ')}]`);
  fm.push('---');
  return fm;
}

/**
 * The Markdown body of a checkpoint file, without the front matter: what a person reads (the editor shows a resumed
 * checkpoint as this), and what an agent reads below the metadata.
 */
export function renderCheckpointBody(cp: Checkpoint): string {
  // Every value in the body is one escaped line: a branch, plan path or name with a line break (or a control
  // character) must not start a section of its own that an agent would read as instructions.
  const plan = cp.plan === undefined ? undefined : oneLine(cp.plan);
  const lines = [`# Checkpoint: ${oneLine(cp.name)}`, `- **Branch:** \`${oneLine(cp.branch) || NO_BRANCH}\``, `- **Saved:** ${formatLocalDateTime(new Date(cp.saved))}`];
  if (cp.plan) {
    const step = cp.planStep !== undefined && cp.planSteps !== undefined ? ` (${formatStep(cp.planStep, cp.planSteps)})` : '';
    lines.push(`- **Plan:** \`${plan}\`${step}`);
  }
  const leftOff = leftOffLines(cp.leftOff).map(escapeLine);
  lines.push('## Left Off', ...(leftOff.length ? leftOff : [NONE]));
  lines.push('## Done This Session', ...renderList(cp.done));
  lines.push('## Failed Approaches', ...renderList(cp.failed));
  if (cp.decisions.length) lines.push('## Decisions', ...renderList(cp.decisions));
  if (cp.questions.length) lines.push('## Open Questions', ...renderList(cp.questions));
  if (cp.blockers?.length) lines.push('## Blockers', ...renderList(cp.blockers));
  lines.push('## Modified Files', ...renderList(cp.modifiedFiles));
  if (cp.sources?.length) lines.push('## Sources', ...renderSources(cp.sources));
  return `${lines.join('\n')}\n`;
}

/** Characters a plain scalar may hold inside a YAML flow sequence (no `,`, brackets, braces, spaces or `#`). */
const FLOW_SAFE = /^[A-Za-z0-9_.~/@+-]+$/;

/** A string as an item of a YAML flow sequence (`[a, b]`): plain when it reads back as itself, else quoted. */
function flowScalar(value: string): string {
  const y = yamlString(value);
  if (y !== value) return y;
  return FLOW_SAFE.test(value) ? value : JSON.stringify(value);
}
