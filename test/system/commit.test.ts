import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { commitMessage, isLikelySecret, saveAndCommit, SUBJECT_MAX } from '../../src/core/commit';
import { CheckpointStore } from '../../src/core/store';
import { git, makeRepo, removeDir, tempDirs } from '../support/fixtures';

const temp = tempDirs();

// git reads its global config from HOME: a temp one, so no user.email comes from the real home folder.
const home = temp('checkpoint-home-');
process.env.HOME = home;
process.env.GIT_CONFIG_NOSYSTEM = '1';
after(() => removeDir(home));

const env = { PATH: process.env.PATH, HOME: home };

function write(root: string, rel: string, text = 'x\n'): void {
  mkdirSync(path.dirname(path.join(root, rel)), { recursive: true });
  writeFileSync(path.join(root, rel), text);
}

/** A repository whose memory folder lies inside it (`.claude/memory`), as when Claude Code is not set up. */
function setup(): { repo: string; store: CheckpointStore; mem: string } {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(repo, '.claude', 'memory');
  return { repo, mem, store: new CheckpointStore({ memoryDir: mem, cwd: repo }) };
}

/** `git status` apart from the memory folder (which the save itself creates). */
const status = (repo: string): string =>
  git(repo, 'status', '--porcelain')
    .split('\n')
    .filter((l) => !l.includes('.claude/'))
    .join('\n');

/** What the index holds (paths and blobs): unchanged means nothing was staged. */
const index = (repo: string): string => git(repo, 'ls-files', '--stage');
const head = (repo: string): string => git(repo, 'rev-parse', 'HEAD').trim();
const committedFiles = (repo: string): string[] => git(repo, 'show', '--no-renames', '--name-only', '--format=', 'HEAD').split('\n').filter(Boolean).sort();

test('secret-looking file names', () => {
  for (const p of ['.env', 'app/.env.local', '.ENV.production', 'keys/server.key', 'tls.PEM', 'id_rsa', 'a/id_rsa.pub', 'cert.p12']) assert.ok(isLikelySecret(p), p);
  for (const p of ['env.ts', 'src/key.ts', 'keyboard.md', 'docs/pem.md', 'my.env', 'p12.txt']) assert.ok(!isLikelySecret(p), p);
});

test('commit message: conventional subject of at most 72 characters, Done as the body', () => {
  assert.equal(commitMessage({ name: 'oauth', description: 'Wiring the callback', done: ['a', 'b'] }), 'checkpoint(oauth): Wiring the callback\n\n- a\n- b\n');
  const long = commitMessage({ name: 'n', description: 'x'.repeat(200), done: [] });
  assert.equal(Array.from(long.trimEnd()).length, SUBJECT_MAX);
  assert.match(long, /…\n$/);
  assert.equal(commitMessage({ name: 'n', description: 'None', done: [] }), 'checkpoint(n): checkpoint saved\n');
});

test('save --commit stages the work tree except likely secrets (listed) and the memory folder', async () => {
  const { repo, store, mem } = setup();
  write(repo, 'src/a.ts');
  write(repo, 'README.md', '# changed\n');
  write(repo, 'old.txt');
  git(repo, 'add', 'old.txt');
  git(repo, 'commit', '-qm', 'old');
  rmSync(path.join(repo, 'old.txt'));
  const secrets = ['.env', 'config/.env.local', 'keys/server.KEY', 'id_rsa', 'id_rsa.pub', 'cert.p12', 'tls.pem'];
  for (const s of secrets) write(repo, s, 'secret\n');
  const r = await saveAndCommit(store, { name: 'work', leftOff: 'Wired the parser\nmore detail', done: ['parser', 'tests'] }, { env });
  assert.equal(r.commitError, undefined, r.commitError?.message);
  assert.deepEqual(r.commit?.leftOut.slice().sort(), secrets.slice().sort());
  assert.deepEqual(r.commit?.committed, ['README.md', 'old.txt', 'src/a.ts']);
  assert.deepEqual(committedFiles(repo), ['README.md', 'old.txt', 'src/a.ts']);
  assert.equal(git(repo, 'log', '-1', '--format=%B').trim(), 'checkpoint(work): Wired the parser\n\n- parser\n- tests');
  assert.equal(r.commit?.hash, head(repo));
  // The secrets are still there, untracked; the checkpoint is saved and not committed.
  const status = git(repo, 'status', '--porcelain', '--untracked-files=all');
  for (const s of secrets) assert.match(status, new RegExp(`^\\?\\? ${s.replace(/\./g, '\\.')}$`, 'm'));
  assert.ok(existsSync(path.join(mem, 'checkpoint-work.md')));
  assert.equal(git(repo, 'ls-files', '.claude'), '');
});

test('a message with quotes, newlines and a leading "-" is committed as text, never as an option', async () => {
  const { repo, store } = setup();
  write(repo, 'a.txt');
  const leftOff = `--amend -m "quoted" 'single' $(touch pwned) \`x\`\nsecond line`;
  const done = ['--no-verify', 'say "hi"\nand more', '-'];
  const r = await saveAndCommit(store, { name: 'quotes', leftOff, done }, { env });
  assert.equal(r.commitError, undefined, r.commitError?.message);
  assert.equal(git(repo, 'log', '-1', '--format=%s'), `checkpoint(quotes): --amend -m "quoted" 'single' $(touch pwned) \`x\``);
  assert.equal(git(repo, 'log', '-1', '--format=%b').trim(), '- --no-verify\n- say "hi" and more\n- -');
  assert.equal(git(repo, 'rev-list', '--count', 'HEAD').trim(), '2', 'a new commit, not an amended one');
  assert.ok(!existsSync(path.join(repo, 'pwned')));
});

test('a failing pre-commit hook: its output shown, the index put back, the checkpoint kept', async () => {
  const { repo, store, mem } = setup();
  write(repo, 'staged.txt');
  git(repo, 'add', 'staged.txt');
  write(repo, 'unstaged.txt');
  write(repo, '.git/hooks/pre-commit', '#!/bin/sh\necho "lint: 3 problems in src/a.ts" >&2\nexit 1\n');
  chmodSync(path.join(repo, '.git/hooks/pre-commit'), 0o755);
  const before = { index: index(repo), head: head(repo) };
  const r = await saveAndCommit(store, { name: 'hooked', leftOff: 'x' }, { env });
  assert.equal(r.commitError?.problem, 'hook');
  assert.match(r.commitError!.message, /pre-commit hook failed[\s\S]*lint: 3 problems in src\/a\.ts/);
  assert.deepEqual({ index: index(repo), head: head(repo) }, before);
  assert.match(git(repo, 'status', '--porcelain'), /\?\? unstaged\.txt/);
  assert.ok(existsSync(path.join(mem, 'checkpoint-hooked.md')));
});

test('a hanging pre-commit hook is stopped at the time limit: the index put back, the checkpoint kept', { timeout: 60_000 }, async () => {
  const { repo, store, mem } = setup();
  write(repo, 'a.txt');
  // The hook outlasts the test's own time limit: only the commit's time limit ends the wait.
  write(repo, '.git/hooks/pre-commit', '#!/bin/sh\necho "checking…" >&2\nsleep 90\n');
  chmodSync(path.join(repo, '.git/hooks/pre-commit'), 0o755);
  const before = { index: index(repo), head: head(repo) };
  const r = await saveAndCommit(store, { name: 'slow', leftOff: 'x' }, { env, timeoutMs: 1_500 });
  assert.ok(r.commitError, 'the commit is refused');
  assert.match(r.commitError.message, /Not committed/);
  assert.deepEqual({ index: index(repo), head: head(repo) }, before);
  assert.ok(existsSync(path.join(mem, 'checkpoint-slow.md')));
});

const refusals: { name: string; problem: string; message: RegExp; arrange: (repo: string) => void }[] = [
  { name: 'nothing to commit', problem: 'nothing', message: /^Nothing to commit\.$/, arrange: () => undefined },
  {
    name: 'only secrets changed',
    problem: 'nothing',
    message: /Nothing to commit \(left out as likely secrets: \.env\)/,
    arrange: (repo) => write(repo, '.env'),
  },
  {
    name: 'a detached HEAD',
    problem: 'detached',
    message: /HEAD is detached/,
    arrange: (repo) => {
      git(repo, 'checkout', '-q', '--detach');
      write(repo, 'a.txt');
    },
  },
  {
    name: 'a merge in progress',
    problem: 'in-progress',
    message: /a merge is in progress/,
    arrange: (repo) => {
      git(repo, 'checkout', '-q', '-b', 'other');
      write(repo, 'README.md', 'other\n');
      git(repo, 'commit', '-qam', 'other');
      git(repo, 'checkout', '-q', 'main');
      write(repo, 'README.md', 'main\n');
      git(repo, 'commit', '-qam', 'main');
      try {
        git(repo, 'merge', 'other');
      } catch {
        // the conflict is the point
      }
      write(repo, 'a.txt');
    },
  },
  {
    name: 'no user.email',
    problem: 'no-email',
    message: /no user\.email.*git config user\.email/,
    arrange: (repo) => {
      git(repo, 'config', '--unset', 'user.email');
      write(repo, 'a.txt');
    },
  },
  {
    name: 'an already staged secret',
    problem: 'staged-secret',
    message: /\.env is already staged/,
    arrange: (repo) => {
      write(repo, '.env');
      git(repo, 'add', '.env');
      write(repo, 'a.txt');
    },
  },
];
for (const c of refusals) {
  test(`commit refused on ${c.name}: a clear message, the checkpoint saved, nothing else changed`, async () => {
    const { repo, store, mem } = setup();
    c.arrange(repo);
    const before = { index: index(repo), head: head(repo), status: status(repo) };
    const r = await saveAndCommit(store, { name: 'kept', leftOff: 'x' }, { env });
    assert.equal(r.commitError?.problem, c.problem, r.commitError?.message);
    assert.match(r.commitError!.message, c.message);
    assert.equal(r.commit, undefined);
    assert.ok(existsSync(path.join(mem, 'checkpoint-kept.md')));
    assert.deepEqual({ index: index(repo), head: head(repo), status: status(repo) }, before);
  });
}

test('--push pushes to a bare remote, setting the upstream, then to it', async () => {
  const { repo, store } = setup();
  const bare = temp('checkpoint-bare-');
  git(bare, 'init', '-q', '--bare', '-b', 'main');
  git(repo, 'remote', 'add', 'origin', bare);
  write(repo, 'a.txt');
  const first = await saveAndCommit(store, { name: 'pushed', leftOff: 'first push' }, { env, push: true });
  assert.equal(first.commitError, undefined, first.commitError?.message);
  assert.equal(first.commit?.pushed, true, first.commit?.pushError);
  assert.equal(git(bare, 'log', '-1', '--format=%s', 'main').trim(), 'checkpoint(pushed): first push');
  assert.equal(git(repo, 'rev-parse', '--abbrev-ref', '@{upstream}').trim(), 'origin/main');
  write(repo, 'b.txt');
  const second = await saveAndCommit(store, { name: 'again', leftOff: 'second push' }, { env, push: true });
  assert.equal(second.commit?.pushed, true, second.commit?.pushError);
  assert.equal(git(bare, 'rev-parse', 'main').trim(), head(repo));
});

test('a failed push keeps the commit and says why', async () => {
  const { repo, store } = setup();
  git(repo, 'remote', 'add', 'origin', path.join(repo, 'no-such-remote'));
  write(repo, 'a.txt');
  const r = await saveAndCommit(store, { name: 'p', leftOff: 'x' }, { env, push: true });
  assert.equal(r.commit?.pushed, false);
  assert.match(r.commit?.pushError ?? '', /no-such-remote|does not appear to be a git repository/);
  assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'checkpoint(p): x');
});
