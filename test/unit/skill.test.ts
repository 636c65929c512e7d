import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { SKILL_TEXT } from '../../src/core/skill';
import { CLI, isolatedEnv, tempDirs } from '../support/fixtures';

const temp = tempDirs();

/** Every `checkpoint …` command line the skill shows the agent (in code spans and code blocks). */
function commandLines(text: string): string[] {
  const code = [...text.matchAll(/```[a-z]*\n([\s\S]*?)```/g)].flatMap((m) => m[1].split('\n'));
  const spans = [...text.replace(/```[a-z]*\n[\s\S]*?```/g, '').matchAll(/`([^`\n]+)`/g)].map((m) => m[1]);
  return [...code, ...spans].map((l) => l.trim()).filter((l) => l.startsWith('checkpoint '));
}

test('the skill has the front matter Claude Code needs, and is short', () => {
  const m = /^---\nname: checkpoint\ndescription: (.+)\n---\n/.exec(SKILL_TEXT);
  assert.ok(m, 'name and description front matter');
  assert.match(m[1], /save checkpoint/);
  assert.match(m[1], /continue/);
  assert.ok(SKILL_TEXT.length < 3000, `${SKILL_TEXT.length} characters`);
});

test('every command and option the skill names exists in the CLI', () => {
  const lines = commandLines(SKILL_TEXT);
  const commands = new Set(lines.map((l) => l.split(/\s+/)[1]));
  assert.deepEqual([...commands].sort(), ['list', 'pending', 'restore', 'resume', 'save', 'show']);
  // Options named in prose (`--done`) belong to the save command line above them.
  const flags = new Map<string, Set<string>>();
  for (const l of lines) {
    const cmd = l.split(/\s+/)[1];
    for (const f of l.match(/--[a-z-]+/g) ?? []) (flags.get(cmd) ?? flags.set(cmd, new Set()).get(cmd)!).add(f);
  }
  for (const f of SKILL_TEXT.replace(/```[\s\S]*?```/g, '').match(/`(--[a-z-]+)/g) ?? []) flags.get('save')!.add(f.slice(1));
  assert.deepEqual([...flags.get('save')!].sort(), ['--decision', '--done', '--failed', '--force', '--left-off', '--plan', '--question']);

  const home = temp('checkpoint-home-');
  for (const cmd of commands) {
    const help = spawnSync(process.execPath, [CLI, cmd, '--help'], { env: isolatedEnv(home), encoding: 'utf8' });
    assert.equal(help.status, 0, `checkpoint ${cmd} --help: ${help.stderr}`);
    for (const flag of flags.get(cmd) ?? []) {
      // The CLI's strict parser refuses an option the command does not have (exit 2); --help then prints help.
      const valued = !['--force', '--json', '--keep'].includes(flag);
      const r = spawnSync(process.execPath, [CLI, cmd, flag, ...(valued ? ['value'] : []), '--help'], { env: isolatedEnv(home), encoding: 'utf8' });
      assert.equal(r.status, 0, `checkpoint ${cmd} ${flag}: ${r.stderr}`);
      assert.ok(help.stdout.includes(flag), `${cmd} --help documents ${flag}`);
    }
  }
  // The check itself catches a name the CLI does not have.
  assert.equal(spawnSync(process.execPath, [CLI, 'save', '--no-such-flag', 'v', '--help'], { env: isolatedEnv(home) }).status, 2);
});
