// Generated fixtures for scripts/bench/run.mjs. Everything lives under one temp folder that the caller removes.
import { execFileSync } from 'node:child_process';
import { mkdirSync, utimesSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Bench',
  GIT_AUTHOR_EMAIL: 'bench@example.invalid',
  GIT_COMMITTER_NAME: 'Bench',
  GIT_COMMITTER_EMAIL: 'bench@example.invalid',
  GIT_CONFIG_NOSYSTEM: '1',
};

function git(cwd, ...args) {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', '-c', 'core.fsmonitor=false', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
    stdio: ['ignore', 'pipe', 'pipe'],
    maxBuffer: 64 << 20,
  });
}

/** Deterministic pseudo-random numbers (the fixtures are the same on every run). */
export function rng(seed = 42) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

const WORDS = 'alpha beta gamma delta oauth token cache parser index tree view store save list resume plan step branch file'.split(' ');
const words = (r, n) => Array.from({ length: n }, () => WORDS[Math.floor(r() * WORDS.length)]).join(' ');

/**
 * A git repository of `files` tracked files (in folders of 50) on branch `feature/bench`, with `modified` of
 * them changed in the work tree. Every file's mtime is set in the past so no index entry is "racily clean"
 * (git would then re-hash those files on every status, which is not what a user's repository looks like).
 */
export function makeGitRepo(dir, { files = 3000, modified = 200 } = {}) {
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'feature/bench');
  // No automatic gc: at 30,000 files the fixture's commit would start a repack in the background, which would run
  // through the rows measured after it.
  git(dir, 'config', 'gc.auto', '0');
  const r = rng(7);
  const paths = [];
  const old = new Date(Date.now() - 120_000);
  for (let i = 0; i < files; i++) {
    const sub = join('src', `mod${String(Math.floor(i / 50)).padStart(2, '0')}`);
    if (i % 50 === 0) mkdirSync(join(dir, sub), { recursive: true });
    const rel = join(sub, `file${String(i).padStart(4, '0')}.ts`);
    const abs = join(dir, rel);
    writeFileSync(abs, `// ${words(r, 8)}\nexport const v${i} = ${i};\n${`// ${words(r, 10)}\n`.repeat(4)}`);
    utimesSync(abs, old, old);
    paths.push(rel);
  }
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fixture');
  const newer = new Date(Date.now() - 60_000);
  const step = Math.floor(files / modified);
  for (let k = 0; k < modified; k++) {
    const abs = join(dir, paths[k * step]);
    writeFileSync(abs, `// changed ${k}\nexport const changed = ${k};\n`);
    utimesSync(abs, newer, newer);
  }
  // One status with index refresh, as any editor's git integration would have done by now.
  const changed = git(dir, 'status', '--porcelain').split('\n').filter(Boolean).length;
  if (changed !== modified) throw new Error(`fixture repo has ${changed} changes, expected ${modified}`);
  return dir;
}

/** A checkpoint as the core would save it (rendered by the core's own renderCheckpoint). */
export function sampleCheckpoint(r, i, base = Date.UTC(2025, 0, 1)) {
  const cp = {
    name: `task-${String(i).padStart(4, '0')}`,
    description: '',
    branch: r() < 0.1 ? '' : `feature/${words(r, 1)}-${i % 37}`,
    saved: new Date(base + i * 3_600_000 + Math.floor(r() * 3_600_000)).toISOString(),
    leftOff: `${words(r, 9)}\n${words(r, 12)}`,
    done: Array.from({ length: 1 + Math.floor(r() * 4) }, () => words(r, 7)),
    failed: Array.from({ length: Math.floor(r() * 3) }, () => `${words(r, 5)} — ${words(r, 6)}`),
    decisions: r() < 0.5 ? [words(r, 8)] : [],
    questions: r() < 0.3 ? [`${words(r, 6)}?`] : [],
    modifiedFiles: Array.from({ length: 3 + Math.floor(r() * 25) }, (_, k) => `src/mod${k % 60}/file${Math.floor(r() * 3000)}.ts`),
  };
  cp.description = cp.leftOff.split('\n')[0];
  if (r() < 0.25) {
    cp.plan = `/home/dev/project/.claude/plans/plan-${i % 11}.md`;
    cp.planSteps = 3 + Math.floor(r() * 8);
    cp.planStep = 1 + Math.floor(r() * cp.planSteps);
  }
  return cp;
}

/** A memory directory with `count` checkpoint files (and their MEMORY.md). Returns the file paths. */
export function makeCheckpointDir(dir, core, count) {
  mkdirSync(dir, { recursive: true });
  const r = rng(11);
  const bullets = [];
  const files = [];
  for (let i = 0; i < count; i++) {
    const cp = sampleCheckpoint(r, i);
    const file = join(dir, `checkpoint-${cp.name}.md`);
    writeFileSync(file, core.renderCheckpoint(cp));
    files.push(file);
    bullets.push(core.formatBullet(cp));
  }
  writeFileSync(join(dir, 'MEMORY.md'), `# Project Memory\n\n## Active Checkpoints\n${bullets.join('\n')}\n\nResume any: \`continue\` or \`continue {name}\`\n`);
  return files;
}

/**
 * MEMORY.md with `bullets` checkpoint bullets and `other` lines of the user's own (headings, prose, a fenced
 * block, a section after ours). Returns the text and the name of a bullet in the middle.
 */
export function makeMemoryIndex(core, { bullets = 2000, other = 150 } = {}) {
  const r = rng(5);
  const before = ['# Project Memory', '', '## Conventions'];
  while (before.length < 90) {
    const n = before.length;
    if (n % 17 === 0) before.push('', `### Notes ${n}`);
    else if (n === 40) before.push('```sh', '## not a heading: inside a fence', 'npm test', '```');
    else before.push(`- ${words(r, 10)}`);
  }
  const after = ['', '## Architecture'];
  while (before.length + after.length < other - 4) after.push(r() < 0.2 ? '' : `${words(r, 12)}.`);
  const list = [];
  for (let i = 0; i < bullets; i++) list.push(core.formatBullet(sampleCheckpoint(r, i)));
  const lines = [...before, '', '## Active Checkpoints', ...list, '', 'Resume any: `continue` or `continue {name}`', ...after];
  const otherLines = lines.length - bullets;
  if (otherLines !== other) throw new Error(`MEMORY.md fixture has ${otherLines} other lines, expected ${other}`);
  return { text: `${lines.join('\n')}\n`, middleName: `task-${String(Math.floor(bullets / 2)).padStart(4, '0')}` };
}
