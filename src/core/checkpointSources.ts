/** The `## Sources` table of a combined checkpoint: one row a checkpoint it was made from, written and read. */
import { formatLocalDateTime, parseLocalDateTime } from './dates';
import { oneLine } from './escaping';
import { NO_BRANCH, type CheckpointSource } from './checkpoint';
import { parseStepText, stripTicks } from './checkpointBody';
import { formatStep } from './wording';

const NO_VALUE = '—';
const SOURCES_HEADER = ['| Name | Saved | Branch | Plan step |', '| --- | --- | --- | --- |'];

/** One table cell: one line, no control characters, `\` and `|` escaped so the row splits where it should. */
function tableCell(text: string): string {
  // eslint-disable-next-line no-control-regex
  const line = oneLine(text).replace(/[\u0000-\u001f\u007f]/g, '?');
  return line === '' ? NO_VALUE : line.replace(/[\\|]/g, (c) => `\\${c}`);
}

export function renderSources(sources: CheckpointSource[]): string[] {
  return [
    ...SOURCES_HEADER,
    ...sources.map((src) => {
      const saved = src.saved ? formatLocalDateTime(new Date(src.saved)) : '';
      const step = src.planStep !== undefined && src.planSteps !== undefined ? formatStep(src.planStep, src.planSteps) : '';
      return `| ${[tableCell(src.name), tableCell(saved), tableCell(src.branch || NO_BRANCH), tableCell(step)].join(' | ')} |`;
    }),
  ];
}

/** The cells of a Markdown table row (`| a | b\\|c |`), unescaped; undefined when the line is not a row. */
function tableCells(line: string): string[] | undefined {
  const row = line.trim();
  if (!row.startsWith('|')) return undefined;
  const cells: string[] = [];
  let cell = '';
  for (let i = 1; i < row.length; i++) {
    const c = row[i];
    if (c === '\\' && (row[i + 1] === '|' || row[i + 1] === '\\')) cell += row[++i];
    else if (c === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += c;
  }
  if (cell.trim() !== '') cells.push(cell.trim());
  return cells;
}

/** The rows of the `## Sources` table, by name (a header row followed by a `---` row is skipped). */
export function parseSourcesTable(lines: string[] | undefined): CheckpointSource[] {
  if (!lines) return [];
  const rows = lines.map(tableCells).filter((r): r is string[] => r !== undefined && r.length > 0);
  const isRule = (r: string[] | undefined): boolean => r !== undefined && r.every((c) => /^:?-+:?$/.test(c));
  const data = isRule(rows[1]) ? rows.slice(2) : rows.filter((r) => !isRule(r));
  return data.map((r) => {
    const value = (i: number): string => (r[i] === undefined || r[i] === NO_VALUE ? '' : r[i]);
    const src: CheckpointSource = {
      name: value(0),
      saved: parseLocalDateTime(value(1))?.toISOString() ?? '',
      branch: value(2) === NO_BRANCH ? '' : stripTicks(value(2)),
    };
    const step = value(3) ? parseStepText(value(3)) : undefined;
    if (step) [src.planStep, src.planSteps] = step;
    return src;
  }).filter((src) => src.name !== '');
}
