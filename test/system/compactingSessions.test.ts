// Claude Code sessions compacting at the same moment run their pre-compact hooks at once, each a process of its own
// writing the same memory folder: every session keeps its automatic checkpoint.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { mkdirSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, isolatedEnv, makeRepo, tempDirs } from '../support/fixtures';

const temp = tempDirs();

test('several sessions compacting at once: each session keeps its automatic checkpoint', async () => {
  const home = temp('checkpoint-home-');
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(home, 'mem');
  mkdirSync(mem);
  const env = isolatedEnv(home);
  for (let round = 0; round < 3; round++) {
    const sessions = Array.from({ length: 5 }, (_, i) => `r${round}-s${i}`);
    await Promise.all(
      sessions.map(
        (session) =>
          new Promise<void>((resolve, reject) => {
            const child = spawn(process.execPath, [CLI, 'hook', 'pre-compact', '--dir', mem], { cwd: repo, env, stdio: ['pipe', 'ignore', 'pipe'], timeout: 60_000 });
            child.stdin.end(JSON.stringify({ session_id: session, cwd: repo, hook_event_name: 'PreCompact', trigger: 'auto' }));
            child.once('error', reject);
            child.once('close', () => resolve());
          }),
      ),
    );
    const autos = readdirSync(mem).filter((f) => f.startsWith('checkpoint-auto-'));
    const bySession = new Set(autos.map((f) => /^session: (.*)$/m.exec(readFileSync(path.join(mem, f), 'utf8'))?.[1]));
    for (const session of sessions) assert.ok(bySession.has(session), `round ${round}: the checkpoint of ${session} is there`);
  }
});
