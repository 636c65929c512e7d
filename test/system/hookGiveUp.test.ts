import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { chmodSync, mkdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, ended, finished, git, isolatedEnv, makeRepo, tempDirs } from '../support/fixtures';

// A Claude Code hook that gives up at its time limit exits at once; git, and whatever filter or hook git started,
// must not stay behind it (they run in process groups of their own, which a plain exit leaves running).

const temp = tempDirs();

test('a hook that gives up after its time limit leaves no git nor hanging filter process running', { timeout: 60_000 }, async () => {
  const home = temp('checkpoint-home-');
  mkdirSync(path.join(home, '.claude'));
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const pids = path.join(repo, '.git', 'filter-pids');
  // A clean filter that records its own pid and git's (its parent), then hangs.
  const filter = path.join(repo, '.git', 'hang.sh');
  writeFileSync(filter, `#!/bin/sh\necho $$ >> "${pids}"\necho $PPID >> "${pids}"\nexec sleep 120\n`);
  chmodSync(filter, 0o755);
  writeFileSync(path.join(repo, '.gitattributes'), '*.txt filter=hang\n');
  writeFileSync(path.join(repo, 'a.txt'), 'one\n');
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'files');
  git(repo, 'config', 'filter.hang.clean', filter);
  // Same size, another time: git status must read the file through the filter to know whether it changed.
  writeFileSync(path.join(repo, 'a.txt'), 'two\n');
  const later = new Date(Date.now() + 3_600_000);
  utimesSync(path.join(repo, 'a.txt'), later, later);

  const child = spawn(process.execPath, [CLI, 'hook', 'pre-compact'], { cwd: repo, env: isolatedEnv(home), stdio: ['pipe', 'pipe', 'pipe'] });
  child.stdin.end(JSON.stringify({ session_id: 's1', hook_event_name: 'PreCompact', trigger: 'auto', cwd: repo }));
  const r = await finished(child);
  assert.equal(r.code, 0);
  assert.match(r.err, /gave up after/);
  const started = readFileSync(pids, 'utf8').split('\n').filter(Boolean).map(Number);
  assert.ok(started.length >= 2, 'the filter ran');
  await Promise.all(started.map((pid) => ended(pid)));
});
