import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { git, makeRepo, removeDir, tempDir } from '../support/fixtures';
import { isolatedEnv, runCli } from '../support/processes';

const home = tempDir('checkpoint-home-');
after(() => removeDir(home));
const env = isolatedEnv(home);

function refs(repo: string): string[] {
  return git(repo, 'for-each-ref', '--format=%(refname)', 'refs/checkpoints').split('\n').filter(Boolean);
}

test('CLI save takes a snapshot in a git repository; --no-snapshot takes none', async () => {
  const repo = makeRepo();
  const mem = path.join(tempDir(), 'mem');
  try {
    writeFileSync(path.join(repo, 'wip.ts'), 'export {};\n');
    const a = await runCli(['save', 'with', '--left-off', 'x', '--dir', mem], { cwd: repo, env });
    assert.equal(a.code, 0, a.err);
    assert.equal(a.err, '');
    const text = readFileSync(path.join(mem, 'checkpoint-with.md'), 'utf8');
    const snap = /\nsnapshot: "([0-9a-f]{40})"\n/.exec(text)?.[1];
    assert.ok(snap, text);
    assert.deepEqual(refs(repo), ['refs/checkpoints/snapshots/with']);
    assert.equal(git(repo, 'show', `${snap}:wip.ts`), 'export {};\n');

    const b = await runCli(['save', 'without', '--no-snapshot', '--dir', mem], { cwd: repo, env });
    assert.equal(b.code, 0, b.err);
    assert.doesNotMatch(readFileSync(path.join(mem, 'checkpoint-without.md'), 'utf8'), /snapshot:|head:/);
    assert.deepEqual(refs(repo), ['refs/checkpoints/snapshots/with']);
  } finally {
    removeDir(repo);
    removeDir(path.dirname(mem));
  }
});
