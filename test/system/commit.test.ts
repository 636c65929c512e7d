import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { chmodSync, existsSync, mkdirSync, readFileSync, rmSync, symlinkSync, watch, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { commitMessage, saveAndCommit, SUBJECT_MAX } from '../../src/core/commit';
import { isLikelySecret } from '../../src/core/secrets';
import { CheckpointStore } from '../../src/core/store';
import { ended, git, makeRepo, removeDir, tempDirs } from '../support/fixtures';

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

/** Writes a file and stages it. */
function stage(repo: string, rel: string): void {
  write(repo, rel);
  git(repo, 'add', '--', rel);
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

/**
 * Notes the index (paths and blobs) and HEAD as they are now (and `git status`, with `status`); the function it
 * returns asserts that they still are.
 */
function unchangedFrom(repo: string, opts: { status?: boolean } = {}): () => void {
  const now = (): object => ({ index: index(repo), head: head(repo), ...(opts.status ? { status: status(repo) } : {}) });
  const before = now();
  return () => assert.deepEqual(now(), before);
}

/** A hook of the repository (`.git/hooks/<name>`) that runs `script` (sh). */
function hook(repo: string, name: string, script: string): void {
  write(repo, `.git/hooks/${name}`, `#!/bin/sh\n${script}\n`);
  chmodSync(path.join(repo, '.git/hooks', name), 0o755);
}

test('secret-looking file names', () => {
  const secrets = [
    ...['.env', 'app/.env.local', '.ENV.production', 'keys/server.key', 'tls.PEM', 'id_rsa', 'a/id_rsa.pub', 'cert.p12'],
    ...['id_ed25519', '.ssh/id_ecdsa', 'id_dsa', 'cert.pfx', '.npmrc', 'home/.netrc', '.git-credentials', '.aws/credentials'],
    ...['credentials.json', 'gcp/service-account-prod.json', 'service_account.json', '.pgpass', 'infra/terraform.tfstate'],
    ...['terraform.tfstate.backup', 'release.jks', 'app.keystore', 'old/server.key.bak', 'tls.pem.orig', 'deploy.ppk'],
    ...['.htpasswd', '.s3cfg', 'client.ovpn', 'secrets.kdbx', '.bash_history', 'docker/.docker/config.json'],
    // 0.2.0 took these: direnv's .envrc (README promises .env*), an exported PGP private key.
    ...['.envrc', 'app/.envrc', 'private.asc', 'keys/my-secret-key.gpg', 'secring.gpg', 'Private-Key.PGP'],
  ];
  for (const p of secrets) assert.ok(isLikelySecret(p), p);
  const plain = ['env.ts', 'src/key.ts', 'keyboard.md', 'docs/pem.md', 'my.env', 'p12.txt', 'src/credentials.ts', 'service.json'];
  plain.push('docs/npmrc.md', 'main.tf', 'keystore.md', 'aws/config', 'credentials/README.md', 'settings.py', 'password-reset.ts', 'id.ts');
  plain.push('release-1.0.tar.gz.asc', 'KEYS.asc', 'public.gpg', 'environment.ts', 'src/.eslintrc');
  for (const p of plain) assert.ok(!isLikelySecret(p), p);
});

test('commit message: conventional subject of at most 72 characters, Done as the body', () => {
  assert.equal(commitMessage({ name: 'oauth', description: 'Wiring the callback', done: ['a', 'b'] }), 'chore(oauth): wiring the callback\n\n- a\n- b\n');
  const long = commitMessage({ name: 'n', description: 'x'.repeat(200), done: [] });
  assert.equal(Array.from(long.trimEnd()).length, SUBJECT_MAX);
  assert.match(long, /…\n$/);
  assert.equal(commitMessage({ name: 'n', description: 'None', done: [] }), 'chore(n): checkpoint saved\n');
});

test('save --commit stages the work tree except likely secrets (listed) and the memory folder', async () => {
  const { repo, store, mem } = setup();
  write(repo, 'src/a.ts');
  write(repo, 'README.md', '# changed\n');
  stage(repo, 'old.txt');
  git(repo, 'commit', '-qm', 'old');
  rmSync(path.join(repo, 'old.txt'));
  const secrets = ['.env', 'config/.env.local', 'keys/server.KEY', 'id_rsa', 'id_rsa.pub', 'cert.p12', 'tls.pem'];
  for (const s of secrets) write(repo, s, 'secret\n');
  const r = await saveAndCommit(store, { name: 'work', leftOff: 'Wired the parser\nmore detail', done: ['parser', 'tests'] }, { env });
  assert.equal(r.commitError, undefined, r.commitError?.message);
  assert.deepEqual(r.commit?.leftOut.slice().sort(), secrets.slice().sort());
  assert.deepEqual(r.commit?.committed, ['README.md', 'old.txt', 'src/a.ts']);
  assert.deepEqual(committedFiles(repo), ['README.md', 'old.txt', 'src/a.ts']);
  assert.equal(git(repo, 'log', '-1', '--format=%B').trim(), 'chore(work): wired the parser\n\n- parser\n- tests');
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
  assert.equal(git(repo, 'log', '-1', '--format=%s'), `chore(quotes): --amend -m "quoted" 'single' $(touch pwned) \`x\``);
  assert.equal(git(repo, 'log', '-1', '--format=%b').trim(), '- --no-verify\n- say "hi" and more\n- -');
  assert.equal(git(repo, 'rev-list', '--count', 'HEAD').trim(), '2', 'a new commit, not an amended one');
  assert.ok(!existsSync(path.join(repo, 'pwned')));
});

test('a failing pre-commit hook: its output shown, the index put back, the checkpoint kept', async () => {
  const { repo, store, mem } = setup();
  stage(repo, 'staged.txt');
  write(repo, 'unstaged.txt');
  hook(repo, 'pre-commit', 'echo "lint: 3 problems in src/a.ts" >&2\nexit 1');
  const unchanged = unchangedFrom(repo);
  const r = await saveAndCommit(store, { name: 'hooked', leftOff: 'x' }, { env });
  assert.equal(r.commitError?.problem, 'hook');
  assert.match(r.commitError!.message, /pre-commit hook failed[\s\S]*lint: 3 problems in src\/a\.ts/);
  unchanged();
  assert.match(git(repo, 'status', '--porcelain'), /\?\? unstaged\.txt/);
  assert.ok(existsSync(path.join(mem, 'checkpoint-hooked.md')));
});


test('a failed pre-commit hook leaves the index file byte for byte as it was: intent-to-add, assume-unchanged, skip-worktree, sparse checkout', async () => {
  const { repo, store } = setup();
  for (const f of ['a.txt', 'far/c.txt', 'near/d.txt']) write(repo, f);
  git(repo, 'add', '.');
  git(repo, 'commit', '-qm', 'files');
  git(repo, 'sparse-checkout', 'set', 'near');
  assert.ok(!existsSync(path.join(repo, 'far', 'c.txt')), 'far/ is outside the sparse checkout');
  write(repo, 'planned.txt');
  git(repo, 'add', '--intent-to-add', 'planned.txt');
  git(repo, 'update-index', '--assume-unchanged', 'a.txt');
  write(repo, 'near/d.txt', 'changed\n');
  hook(repo, 'pre-commit', 'echo "lint failed" >&2\nexit 1');
  const indexFile = path.join(repo, '.git', 'index');
  const before = readFileSync(indexFile);
  const r = await saveAndCommit(store, { name: 'sparse', leftOff: 'x' }, { env });
  assert.equal(r.commitError?.problem, 'hook', r.commitError?.message);
  assert.ok(readFileSync(indexFile).equals(before), 'the index file is the same, byte for byte');
  assert.equal(git(repo, 'ls-files', '-t', '--', 'far/c.txt').trim(), 'S far/c.txt', 'skip-worktree kept');
  assert.equal(git(repo, 'ls-files', '-v', '--', 'a.txt').trim(), 'h a.txt');
  assert.match(git(repo, 'status', '--porcelain'), /^ A planned\.txt$/m);
  assert.doesNotMatch(git(repo, 'status', '--porcelain'), /far\/c\.txt/, 'nothing outside the sparse checkout shows as deleted');
});

test('a workspace opened through a symlink: MEMORY.md and the checkpoints inside the repository are never committed', async () => {
  const real = makeRepo({ dir: temp('checkpoint-repo-') });
  const link = path.join(temp('checkpoint-link-'), 'workspace');
  symlinkSync(real, link);
  const mem = path.join(link, '.claude', 'memory');
  const store = new CheckpointStore({ memoryDir: mem, cwd: link });
  write(real, 'src/a.ts');
  const r = await saveAndCommit(store, { name: 'linked', leftOff: 'x' }, { env });
  assert.equal(r.commitError, undefined, r.commitError?.message);
  assert.ok(existsSync(path.join(real, '.claude', 'memory', 'checkpoint-linked.md')));
  assert.deepEqual(r.commit?.committed, ['src/a.ts']);
  assert.deepEqual(committedFiles(real), ['src/a.ts']);
});

test('a pre-commit hook that stages a left-out secret (git add -A): the commit is undone, the index put back, and the message says so', async () => {
  const { repo, store } = setup();
  write(repo, 'src/a.ts');
  write(repo, '.env', 'TOKEN=secret\n');
  hook(repo, 'pre-commit', 'git add -A');
  const before = { index: readFileSync(path.join(repo, '.git', 'index')), head: head(repo), count: git(repo, 'rev-list', '--count', '--branches') };
  const r = await saveAndCommit(store, { name: 'sneaky', leftOff: 'x' }, { env });
  assert.equal(r.commit, undefined, 'no commit is reported');
  assert.equal(r.commitError?.problem, 'staged-secret');
  assert.match(r.commitError!.message, /pre-commit hook staged .*\.env.*the commit was undone/);
  assert.equal(head(repo), before.head);
  assert.ok(readFileSync(path.join(repo, '.git', 'index')).equals(before.index));
  assert.equal(git(repo, 'ls-files', '.env', '.claude'), '', 'nothing of it is tracked');
  assert.equal(git(repo, 'rev-list', '--count', '--branches'), before.count);
});

test('in a repository without commits, a commit a pre-commit hook filled with a secret is undone too: the branch stays unborn', async () => {
  const repo = makeRepo({ dir: temp('checkpoint-repo-'), commit: false });
  const store = new CheckpointStore({ memoryDir: path.join(temp('checkpoint-mem-'), 'memory'), cwd: repo });
  write(repo, 'a.txt');
  write(repo, 'id_ed25519', 'KEY\n');
  hook(repo, 'pre-commit', 'git add -A');
  const r = await saveAndCommit(store, { name: 'first', leftOff: 'x' }, { env });
  assert.equal(r.commitError?.problem, 'staged-secret', r.commitError?.message);
  assert.match(r.commitError!.message, /staged id_ed25519.*the commit was undone/);
  assert.equal(git(repo, 'branch', '--list'), '', 'no branch was made');
  assert.equal(git(repo, 'ls-files'), '');
});

test('a hanging pre-commit hook stops at the time limit with its processes: the message says so, the index put back, the checkpoint kept', { timeout: 30_000 }, async () => {
  const { repo, store, mem } = setup();
  write(repo, 'a.txt');
  const pidFile = path.join(repo, '.git', 'hook-pids');
  // The hook and the sleep it waits on outlast the test's own time limit: only the commit's time limit ends them.
  hook(repo, 'pre-commit', `echo "checking…" >&2\necho $$ >> "${pidFile}"\nsleep 90 &\necho $! >> "${pidFile}"\nwait`);
  const unchanged = unchangedFrom(repo);
  const r = await saveAndCommit(store, { name: 'slow', leftOff: 'x' }, { env, timeoutMs: 1_500 });
  assert.equal(r.commitError?.problem, 'timeout', r.commitError?.message);
  assert.match(r.commitError.message, /Not committed: the time limit of 2 s was reached while the pre-commit hook ran/);
  unchanged();
  assert.ok(!existsSync(path.join(repo, '.git', 'index.lock')), 'no lock left behind: git works on');
  assert.ok(existsSync(path.join(mem, 'checkpoint-slow.md')));
  const pids = readFileSync(pidFile, 'utf8').split('\n').filter(Boolean).map(Number);
  assert.equal(pids.length, 2);
  await Promise.all(pids.map((pid) => ended(pid)));
});

for (const late of ['post-commit', 'reference-transaction'] as const) {
  test(`a ${late} hook past the time limit: the commit exists, so it is reported with a warning and the index is never put back`, { timeout: 30_000 }, async () => {
    const { repo, store } = setup();
    write(repo, 'a.txt', 'the work\n');
    // reference-transaction runs for each state (prepared, committed): it hangs once the ref is moved.
    hook(repo, late, late === 'post-commit' ? 'sleep 90' : 'if [ "$1" = committed ]; then sleep 90; fi');
    const before = head(repo);
    const r = await saveAndCommit(store, { name: 'late', leftOff: 'x' }, { env, timeoutMs: 1_500 });
    assert.equal(r.commitError, undefined, r.commitError?.message);
    assert.ok(r.commit);
    assert.equal(r.commit.hash, head(repo));
    assert.notEqual(r.commit.hash, before);
    assert.deepEqual(r.commit.committed, ['a.txt']);
    assert.match(r.commit.warnings.join('\n'), new RegExp(`Committed, but the ${late} hook was stopped at the time limit of 2 s after the commit was made`));
    // The index is the commit's: nothing staged against HEAD, a.txt tracked (a restored index would stage its removal).
    assert.equal(git(repo, 'diff', '--cached', '--name-only'), '');
    assert.equal(status(repo), '');
    assert.ok(!existsSync(path.join(repo, '.git', 'index.lock')), 'no lock left behind: git works on');
  });
}

/** A commit-msg hook as commitlint's conventional config judges a subject: a known type, an optional scope, no sentence-case, no final full stop. */
const COMMITLINT = `subject=$(head -n 1 "$1")
echo "$subject" | grep -Eq '^(build|chore|ci|docs|feat|fix|perf|refactor|revert|style|test)(\\([^)]+\\))?: [^A-Z].*[^.]$' && exit 0
echo "⧗   input: $subject" >&2
echo "✖   subject may not be empty / type may not be empty [type-enum]" >&2
exit 1`;

test('a commit-msg hook that lints Conventional Commits passes the default subject (chore) and a chosen type', async () => {
  const { repo, store } = setup();
  hook(repo, 'commit-msg', COMMITLINT);
  write(repo, 'a.txt');
  const r = await saveAndCommit(store, { name: 'lint', leftOff: 'Wiring the OAuth callback.' }, { env });
  assert.equal(r.commitError, undefined, r.commitError?.message);
  assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'chore(lint): wiring the OAuth callback');
  write(repo, 'b.txt');
  const feat = await saveAndCommit(store, { name: 'lint-feat', leftOff: 'Login works' }, { env, type: 'feat' });
  assert.equal(feat.commitError, undefined, feat.commitError?.message);
  assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'feat(lint-feat): login works');
});

test('a commit-msg hook that refuses: the message names that hook, the subject and its output; the index is put back', async () => {
  const { repo, store } = setup();
  // The pre-commit hook runs git itself, whose own hooks and children go to the same trace: only commit's count.
  hook(repo, 'pre-commit', 'git status --porcelain >/dev/null\ngit rev-parse --verify -q nothing >/dev/null\nexit 0');
  hook(repo, 'commit-msg', 'echo "✖   type must be one of [feat, fix]" >&2\nexit 1');
  write(repo, 'a.txt');
  const unchanged = unchangedFrom(repo);
  const r = await saveAndCommit(store, { name: 'refused', leftOff: 'x' }, { env });
  assert.equal(r.commitError?.problem, 'hook');
  assert.match(r.commitError!.message, /^Not committed: the commit-msg hook refused the message "chore\(refused\): x"; nothing was staged or committed\. Its output:\n✖ {3}type must be one of \[feat, fix\]/);
  unchanged();
  await assert.rejects(saveAndCommit(store, { name: 'bad-type', leftOff: 'x' }, { env, type: 'Feat!' }).then((x) => { if (x.commitError) throw x.commitError; }), /Invalid commit type "Feat!"/);
});

test('Cancel while a pre-commit hook runs stops it with its processes and puts everything back', { timeout: 30_000 }, async () => {
  const { repo, store } = setup();
  write(repo, 'a.txt');
  const pidFile = path.join(repo, '.git', 'hook-pids');
  hook(repo, 'pre-commit', `sleep 90 &\necho $$ $! > "${pidFile}.tmp"\nmv "${pidFile}.tmp" "${pidFile}"\nwait`);
  const before = { index: readFileSync(path.join(repo, '.git', 'index')), head: head(repo) };
  const cancel = new AbortController();
  // Cancel once the hook has started its sleep (the pid file appears).
  const watcher = watch(path.join(repo, '.git'), (_event, file) => {
    if (file === 'hook-pids' && existsSync(pidFile)) cancel.abort();
  });
  try {
    const r = await saveAndCommit(store, { name: 'canceled', leftOff: 'x' }, { env, signal: cancel.signal });
    assert.equal(r.commitError?.message, 'Not committed: canceled; nothing was staged or committed.');
  } finally {
    watcher.close();
  }
  assert.equal(head(repo), before.head);
  assert.ok(readFileSync(path.join(repo, '.git', 'index')).equals(before.index));
  assert.ok(!existsSync(path.join(repo, '.git', 'index.lock')));
  const pids = readFileSync(pidFile, 'utf8').trim().split(' ').map(Number);
  await Promise.all(pids.map((pid) => ended(pid)));
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
      stage(repo, '.env');
      write(repo, 'a.txt');
    },
  },
];
for (const c of refusals) {
  test(`commit refused on ${c.name}: a clear message, the checkpoint saved, nothing else changed`, async () => {
    const { repo, store, mem } = setup();
    c.arrange(repo);
    const unchanged = unchangedFrom(repo, { status: true });
    const r = await saveAndCommit(store, { name: 'kept', leftOff: 'x' }, { env });
    assert.equal(r.commitError?.problem, c.problem, r.commitError?.message);
    assert.match(r.commitError!.message, c.message);
    assert.equal(r.commit, undefined);
    assert.ok(existsSync(path.join(mem, 'checkpoint-kept.md')));
    unchanged();
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
  assert.equal(git(bare, 'log', '-1', '--format=%s', 'main').trim(), 'chore(pushed): first push');
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
  assert.equal(git(repo, 'log', '-1', '--format=%s').trim(), 'chore(p): x');
});
