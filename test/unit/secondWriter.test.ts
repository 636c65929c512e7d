// The agent is a second writer of the memory folder: bullets it writes by hand, names as people type them, where a
// new section goes. Each case is one the product got wrong while it took itself for the only writer.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isolatedEnv, makeRepo, runCliSync, tempDirs } from '../support/fixtures';

const temp = tempDirs();

function world(): { repo: string; mem: string; home: string; cli: (...args: string[]) => { code: number | null; out: string; err: string } } {
  const home = temp('checkpoint-home-');
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(home, 'mem');
  mkdirSync(mem);
  const env = isolatedEnv(home);
  return { repo, mem, home, cli: (...args) => runCliSync([...args, '--dir', mem], { cwd: repo, env }) };
}

/** A checkpoint as an agent following the seed writes it: no front matter, the file named by the seed's rule. */
function agentCheckpoint(mem: string, fileName: string, leftOff: string): void {
  writeFileSync(path.join(mem, fileName), `# Checkpoint: ${fileName}\n\n- **Branch:** \`main\`\n- **Saved:** 2025-11-05 10:00\n\n## Left Off\n${leftOff}\n`);
}

const index = (mem: string): string => readFileSync(path.join(mem, 'MEMORY.md'), 'utf8');

test('bullets an agent wrote in its own shapes go with their checkpoint: ISO date, Nov 05, en dash, --, no parentheses', () => {
  const w = world();
  const shapes: Record<string, string> = {
    iso: '- **iso** (main, 2025-11-05) — iso left',
    endash: '- **endash** (main, Nov 05) – endash left',
    dashes: '- **dashes** (main, Nov 5) -- dashes left',
    noparen: '- **noparen** — noparen left',
  };
  for (const name of Object.keys(shapes)) agentCheckpoint(w.mem, `checkpoint-${name}.md`, `${name} left`);
  const doc = `# Project Memory\n\n## Active Checkpoints\n${Object.values(shapes).join('\n')}\n\nResume any: \`continue\` or \`continue {name}\`\n\n## Notes\nmine\n`;
  writeFileSync(path.join(w.mem, 'MEMORY.md'), doc);
  for (const name of ['iso', 'endash', 'dashes']) {
    const r = w.cli('resume', name);
    assert.equal(r.code, 0, r.err);
    assert.ok(!index(w.mem).includes(`**${name}**`), `resume ${name} took its bullet out of the file Claude Code loads`);
  }
  assert.equal(w.cli('delete', 'noparen').code, 0);
  assert.equal(index(w.mem), '# Project Memory\n\n## Notes\nmine\n', 'no bullet left: the section went, nothing else');
});

test('a stale bullet of any shape whose file is gone: resume cleans it up and says so', () => {
  const w = world();
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '# M\n\n## Active Checkpoints\n- **iso** (main, 2025-11-05) — iso left\n- **kept** — mine\n\nResume any: `continue` or `continue {name}`\n');
  const r = w.cli('resume', 'iso');
  assert.equal(r.code, 0, r.err);
  assert.match(r.out, /cleaned up stale entry "iso"/);
  assert.ok(!index(w.mem).includes('**iso**'));
  assert.ok(index(w.mem).includes('- **kept** — mine'), 'the other bullet stays');
});

test('names as people type them: one lookup for show, resume, delete and save (the seed\'s rule, case, spaces, Unicode form)', () => {
  const w = world();
  agentCheckpoint(w.mem, 'checkpoint-fix:-login.md', 'colon left');
  agentCheckpoint(w.mem, 'checkpoint-My Feature.md', 'space left');
  agentCheckpoint(w.mem, 'checkpoint-café-menu.md', 'menu left');
  const shows: [string, string][] = [
    ['fix: login', 'colon left'],
    ['my feature', 'space left'],
    ['Café Menu', 'menu left'],
    ['Cafe\u0301 Menu', 'menu left'],
  ];
  for (const [typed, leftOff] of shows) {
    const r = w.cli('show', typed, '--json');
    assert.equal(r.code, 0, `show ${typed}: ${r.err}`);
    assert.equal(JSON.parse(r.out).leftOff, leftOff, typed);
  }
  // Saving a name that resolves to an existing checkpoint asks to overwrite instead of writing a second one.
  const again = w.cli('save', 'fix: login', '--left-off', 'second try');
  assert.equal(again.code, 1);
  assert.match(again.err, /already exists/);
  assert.ok(!existsSync(path.join(w.mem, 'checkpoint-fix-login.md')), 'no second checkpoint fix-login');
  const forced = w.cli('save', 'fix: login', '--left-off', 'second try', '--force', '--json');
  assert.equal(forced.code, 0, forced.err);
  assert.equal(JSON.parse(forced.out).path, path.join(w.mem, 'checkpoint-fix:-login.md'));
  assert.deepEqual(readdirSync(w.mem).filter((f) => f.startsWith('checkpoint-')).sort(), ['checkpoint-My Feature.md', 'checkpoint-café-menu.md', 'checkpoint-fix:-login.md']);
  assert.equal(index(w.mem).split('\n').filter((l) => l.startsWith('- **fix')).length, 1, 'the index lists it once');
  // Every name save accepts is found again in the same spelling.
  assert.equal(w.cli('save', 'feature/OAuth Flow', '--left-off', 'oauth').code, 0);
  const show = w.cli('show', 'feature/OAuth Flow', '--json');
  assert.equal(show.code, 0, show.err);
  assert.equal(JSON.parse(show.out).name, 'feature-oauth-flow');
  assert.equal(w.cli('resume', 'Feature/OAuth Flow', '--keep').code, 0);
  // Two checkpoints that match loosely: an error naming both, nothing chosen for the person.
  agentCheckpoint(w.mem, 'checkpoint-My-Feature.md', 'dash left');
  const both = w.cli('show', 'my feature');
  assert.equal(both.code, 1);
  assert.match(both.err, /"My Feature".*"My-Feature"|"My-Feature".*"My Feature"/);
  assert.equal(w.cli('delete', 'my  FEATURE').code, 1, 'an ambiguous name deletes nothing');
  assert.ok(existsSync(path.join(w.mem, 'checkpoint-My Feature.md')) && existsSync(path.join(w.mem, 'checkpoint-My-Feature.md')));
  // A lookup never leaves the memory folder.
  assert.equal(w.cli('show', '../mem/checkpoint-fix:-login').code, 1);
});

test('a new section goes after the first level-one heading, between blank lines; never under a "## Setup"', () => {
  const w = world();
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '# Title\nIntro paragraph line.\n');
  assert.equal(w.cli('save', 'first', '--left-off', 'x').code, 0);
  assert.match(index(w.mem), /^# Title\n\n## Active Checkpoints\n- \*\*first\*\* .*\n\nResume any: .*\n\nIntro paragraph line\.\n$/);
  writeFileSync(path.join(w.mem, 'MEMORY.md'), 'Intro\n## Setup\n- x\n# Real Title\n');
  assert.equal(w.cli('save', 'second', '--left-off', 'y').code, 0);
  assert.match(index(w.mem), /^Intro\n## Setup\n- x\n# Real Title\n\n## Active Checkpoints\n- \*\*(second|first)\*\* [^]*\nResume any: .*\n$/);
  // No level-one heading: the section goes first, followed by a blank line.
  writeFileSync(path.join(w.mem, 'MEMORY.md'), '## Setup\n- x\n');
  assert.equal(w.cli('save', 'third', '--left-off', 'z').code, 0);
  assert.match(index(w.mem), /^## Active Checkpoints\n(?:- .*\n)+\nResume any: .*\n\n## Setup\n- x\n$/);
  assert.match(index(w.mem), /^- \*\*third\*\* /m);
});
