import { parseCheckpoint } from './checkpointParse';
import { renderCheckpoint } from './checkpointRender';
import type { Checkpoint } from './checkpoint';
import { TwinNameError } from './storeTypes';
import { isLikelySecret } from './secrets';
import { CheckpointError, errorMessage } from './errors';
import { oneLine } from './escaping';
import { fileNameFor, printable, sanitizeName } from './names';
import { SHOW_READ_BYTES, type CheckpointStore } from './store';
import { git } from './git';
import { GIT_LONG_TIMEOUT_MS } from './gitProcess';
import { memoryTest } from './snapshot/candidates';
import { repoTop } from './snapshot/reading';
import { checkedRef, commitTree, FILES_REFS, hasCommit, keepSnapshot, SNAPSHOT_REFS } from './snapshot/refs';
import { expandHome, homeFrom, tildify } from './paths';
import { isAbsolute, relative, resolve, sep } from 'node:path';

// The hand-off to another machine through the repository's own git remote: checkpoint files travel as commits on
// refs/checkpoints/files/<name>, their snapshots on refs/checkpoints/snapshots/<name> (two namespaces, so no
// checkpoint name can collide with another ref), with the transport and credentials the code already uses.

/** Where a pull fetches to, before the checkpoints are written (and the refs deleted). */
const INCOMING = 'refs/checkpoints/incoming/';

/** What git needs to reach a remote beyond the local runner's environment: the SSH agent and proxies. */
const NETWORK_ENV = ['SSH_AUTH_SOCK', 'SSH_AGENT_PID', 'GIT_SSH', 'GIT_SSH_COMMAND', 'HTTP_PROXY', 'HTTPS_PROXY', 'NO_PROXY', 'ALL_PROXY', 'http_proxy', 'https_proxy', 'no_proxy', 'all_proxy'];

function networkEnv(): Record<string, string> {
  const env: Record<string, string> = {};
  for (const k of NETWORK_ENV) {
    const v = process.env[k];
    if (v !== undefined) env[k] = v;
  }
  return env;
}

/** The remote to use: the one named (it must be configured), else `origin`, else the only remote. */
export async function resolveRemote(cwd: string, remote?: string): Promise<string> {
  const out = await git(cwd, ['remote']).catch((err: unknown) => {
    throw new CheckpointError(`git cannot list the remotes of ${cwd}: ${errorMessage(err).trim().split('\n')[0]}`);
  });
  const remotes = out.split('\n').map((r) => r.trim()).filter(Boolean);
  if (remote !== undefined) {
    // Only a configured remote: a URL (or anything git could read as an option) never reaches git.
    if (!remotes.includes(remote)) {
      throw new CheckpointError(`No git remote named "${printable(remote)}"${remotes.length ? ` (remotes: ${remotes.join(', ')})` : ''}.`);
    }
    return remote;
  }
  if (remotes.includes('origin')) return 'origin';
  if (remotes.length === 1) return remotes[0];
  if (remotes.length === 0) throw new CheckpointError('This repository has no git remote; add one with `git remote add`.');
  throw new CheckpointError(`Several git remotes and none is "origin": name one with --remote (${remotes.join(', ')}).`);
}

/** A file a pushed snapshot publishes beyond the remote's history: `status` as git's diff says (A, M, D, T…). */
export interface PublishedFile {
  path: string;
  status: string;
  /** New in the snapshot (in no commit of the branch): it was untracked, or only staged, when the checkpoint was saved. */
  untracked: boolean;
}

/** What a push will publish (see {@link planPush}). */
export interface PushPlan {
  remote: string;
  /** Each checkpoint pushed, with its snapshot when that goes too and the files it publishes beyond the remote's history. */
  checkpoints: { name: string; snapshot?: string; files: PublishedFile[]; commits: number }[];
  /** Checkpoints (or their snapshots) that are not pushed, and why. */
  heldBack: { name: string; reason: string; snapshotOnly: boolean }[];
  warnings: string[];
  /** The refspecs `git push` gets. */
  refspecs: string[];
}

export interface PushResult {
  remote: string;
  pushed: { name: string; snapshot?: string }[];
  heldBack: PushPlan['heldBack'];
  warnings: string[];
}

/** The commit of a checkpoint file (a tree holding `checkpoint-<name>.md` only). */
async function fileCommit(cwd: string, name: string, text: string): Promise<string> {
  const blob = (await git(cwd, ['hash-object', '-w', '--stdin'], { input: text })).trim();
  const tree = (await git(cwd, ['mktree'], { input: `100644 blob ${blob}\t${fileNameFor(name)}\n` })).trim();
  return commitTree(cwd, tree, '', `checkpoint file: ${name}`);
}

/** Commits reachable from `commit` that none of the remote's tracking refs (`refs/remotes/<remote>/`) reaches. */
async function commitsBeyondRemote(cwd: string, commit: string, remote: string): Promise<number> {
  const out = await git(cwd, ['rev-list', '--count', commit, '--not', `--glob=refs/remotes/${remote}/*`]);
  return Number(out.trim()) || 0;
}

/** The files a snapshot changes over its parent (its own content: the work tree beyond the commit it was taken on). */
async function snapshotFiles(cwd: string, snapshot: string): Promise<PublishedFile[]> {
  const out = await git(cwd, ['diff-tree', '-r', '--root', '--no-commit-id', '--no-renames', '--name-status', '-z', snapshot]);
  const parts = out.split('\0');
  const files: PublishedFile[] = [];
  for (let i = 0; i + 1 < parts.length; i += 2) {
    if (parts[i] === '') break;
    files.push({ path: parts[i + 1], status: parts[i], untracked: parts[i] === 'A' });
  }
  return files;
}

/**
 * What pushing checkpoints (`names`, else every readable Markdown checkpoint) would publish, nothing pushed yet. A
 * checkpoint travels under its name as the product writes names (lowercase; `My Task` as `my-task`), so a pull on
 * another machine takes it. A snapshot goes only when the commit it was taken on is already on the remote (reachable
 * from its tracking refs): its parent chain would otherwise publish local commits nobody pushed (a key committed and
 * removed in the next commit would be readable there). Such a snapshot is held back, and said so, unless
 * `withHistory`. A checkpoint that cannot be pushed (a name git refuses as a ref) is held back alone.
 */
export async function planPush(store: CheckpointStore, names: string[], remoteName?: string, opts: { withHistory?: boolean } = {}): Promise<PushPlan> {
  const cwd = store.cwd;
  const remote = await resolveRemote(cwd, remoteName);
  const targets = names.length ? names : (await store.list({ includeJson: false })).filter((c) => !c.unreadable).map((c) => c.name);
  if (targets.length === 0) throw new CheckpointError('No checkpoints to push.');
  const plan: PushPlan = { remote, checkpoints: [], heldBack: [], warnings: [], refspecs: [] };
  const taken = new Map<string, string>();
  for (const raw of new Set(targets)) {
    const found = await store.find(raw);
    if (!found || found.source !== 'markdown') throw new CheckpointError(`No checkpoint named "${printable(raw)}" in ${store.memoryDir}.`);
    const shown = printable(found.name, 64);
    const name = sanitizeName(found.name);
    const other = taken.get(name);
    if (!name || other !== undefined) {
      plan.heldBack.push({ name: shown, snapshotOnly: false, reason: name ? `it would be pushed as "${name}", as "${printable(other ?? '', 64)}" is` : 'its name has no letter or digit a pushed name can keep' });
      continue;
    }
    let fileRef: string;
    try {
      fileRef = await checkedRef(cwd, FILES_REFS, name);
    } catch (err) {
      plan.heldBack.push({ name: shown, snapshotOnly: false, reason: oneLine(errorMessage(err)) });
      continue;
    }
    taken.set(name, found.name);
    const cp = await store.show(found.name);
    // The plan travels relative to the repository (or `~/` in the home folder), and lands as a path of the clone.
    const text = renderCheckpoint({ ...cp, name, plan: portablePlan(cp.plan, await topOf(store.cwd), store.home) });
    plan.refspecs.push(`+${await fileCommit(cwd, name, text)}:${fileRef}`);
    const entry: PushPlan['checkpoints'][number] = { name, files: [], commits: 0 };
    plan.checkpoints.push(entry);
    if (!cp.snapshot) continue;
    if (!(await hasCommit(cwd, cp.snapshot))) {
      plan.warnings.push(`The snapshot of "${name}" (${cp.snapshot.slice(0, 12)}) is not in this repository; the checkpoint is pushed without it.`);
      continue;
    }
    const unshared = await unsharedFiles(store, cp.snapshot);
    if (unshared.length) {
      plan.warnings.push(
        `The snapshot of "${name}" holds ${unshared.map((f) => oneLine(f)).join(', ')}, which ${unshared.length > 1 ? 'look' : 'looks'} like a secret or a checkpoint and was never committed; the checkpoint is pushed without its snapshot.`,
      );
      continue;
    }
    // The snapshot itself is one commit beyond its parent; any more are local history the remote does not have.
    const beyond = (await commitsBeyondRemote(cwd, cp.snapshot, remote)) - 1;
    if (beyond > 0 && !opts.withHistory) {
      plan.heldBack.push({
        name,
        snapshotOnly: true,
        reason: `its snapshot was taken on ${beyond} commit(s) that are not on ${remote}; pushing it would publish them. Push the branch first, or push with --with-history`,
      });
      continue;
    }
    plan.refspecs.push(`+${cp.snapshot}:${await checkedRef(cwd, SNAPSHOT_REFS, name)}`);
    entry.snapshot = cp.snapshot;
    entry.files = await snapshotFiles(cwd, cp.snapshot);
    entry.commits = Math.max(0, beyond);
  }
  return plan;
}

/** Pushes what {@link planPush} planned. */
export async function runPush(store: CheckpointStore, plan: PushPlan): Promise<PushResult> {
  const result: PushResult = { remote: plan.remote, pushed: plan.checkpoints.map((c) => (c.snapshot ? { name: c.name, snapshot: c.snapshot } : { name: c.name })), heldBack: plan.heldBack, warnings: plan.warnings };
  if (plan.refspecs.length === 0) return result;
  try {
    await git(store.cwd, ['push', '--no-verify', '--quiet', '--', plan.remote, ...plan.refspecs], { timeoutMs: GIT_LONG_TIMEOUT_MS, env: networkEnv() });
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(`git push to ${plan.remote} failed: ${errorMessage(err).trim()}`);
  }
  return result;
}

/** {@link planPush} then {@link runPush}: what the editor's Push runs. */
export async function pushCheckpoints(store: CheckpointStore, names: string[], remoteName?: string, opts: { withHistory?: boolean } = {}): Promise<PushResult> {
  return runPush(store, await planPush(store, names, remoteName, opts));
}

/**
 * Files a snapshot adds or changes beyond the commit it was taken on that look like secrets (the rule
 * save-and-commit applies) or lie in the memory folder: nobody chose to share them.
 */
async function unsharedFiles(store: CheckpointStore, snapshot: string): Promise<string[]> {
  const top = await repoTop(store.cwd);
  if (!top) return [];
  const out = await git(top, ['diff-tree', '-r', '--root', '--no-commit-id', '--no-renames', '--name-only', '--diff-filter=d', '-z', snapshot]);
  const inMemory = memoryTest(top, store.memoryDir);
  return out.split('\0').filter((p) => p !== '' && (isLikelySecret(p) || inMemory(p)));
}

/** The repository's top folder, once per process and folder. */
const tops = new Map<string, Promise<string | undefined>>();
const topOf = (cwd: string): Promise<string | undefined> => {
  let top = tops.get(cwd);
  if (!top) tops.set(cwd, (top = repoTop(cwd).catch(() => undefined)));
  return top;
};

/**
 * A plan path as it travels to another clone: relative to the repository's top folder (`/`-separated) when it lies
 * in it, `~/…` when it lies in the home folder, else as it is.
 */
export function portablePlan(plan: string | undefined, top: string | undefined, home: string): string | undefined {
  if (!plan || !isAbsolute(plan)) return plan;
  const rel = top ? relative(top, plan) : '';
  if (top && rel && !rel.startsWith('..') && !isAbsolute(rel)) return rel.split(sep).join('/');
  return tildify(plan, home);
}

/** A plan path that travelled ({@link portablePlan}) as a path of this clone: under its top folder, or its home. */
export function localPlan(plan: string | undefined, top: string | undefined, home: string): string | undefined {
  if (!plan) return plan;
  if (plan === '~' || plan.startsWith('~/')) return expandHome(plan, home);
  if (isAbsolute(plan) || !top) return plan;
  const local = resolve(top, plan);
  const rel = relative(top, local);
  // `../` out of the repository is not a path the sender wrote: it stays as it came.
  return rel.startsWith('..') || isAbsolute(rel) ? plan : local;
}

export interface PullResult {
  remote: string;
  /** Written into the memory folder; `trashPath`: where the local checkpoint of that name went first. */
  written: { name: string; path: string; snapshot?: string; trashPath?: string }[];
  /** Already here, identical. */
  unchanged: string[];
  /** Not written, with the reason (not a checkpoint, too large, a name git or the product refuses). */
  skipped: { name: string; reason: string }[];
  warnings: string[];
}

/**
 * Fetches the checkpoints pushed to a git remote and writes them into this machine's memory folder. A local
 * checkpoint of the same name that differs goes to the trash first; an identical one is left as it is. Every file
 * is parsed and written again by the product's own renderer: nothing from the remote is copied verbatim.
 */
export async function pullCheckpoints(store: CheckpointStore, remoteName?: string): Promise<PullResult> {
  const cwd = store.cwd;
  const remote = await resolveRemote(cwd, remoteName);
  try {
    await git(
      cwd,
      ['fetch', '--no-tags', '--no-write-fetch-head', '--prune', '--quiet', '--', remote, `+${FILES_REFS}*:${INCOMING}files/*`, `+${SNAPSHOT_REFS}*:${INCOMING}snapshots/*`],
      { timeoutMs: GIT_LONG_TIMEOUT_MS, env: networkEnv() },
    );
  } catch (err) {
    if (err instanceof CheckpointError) throw err;
    throw new CheckpointError(`git fetch from ${remote} failed: ${errorMessage(err).trim()}`);
  }
  const refs = (await git(cwd, ['for-each-ref', '--format=%(objectname) %(refname)', INCOMING]))
    .split('\n')
    .filter(Boolean)
    .map((l) => ({ sha: l.slice(0, l.indexOf(' ')), ref: l.slice(l.indexOf(' ') + 1) }));
  const result: PullResult = { remote, written: [], unchanged: [], skipped: [], warnings: [] };
  const fetched = new Map(refs.filter((r) => r.ref.startsWith(`${INCOMING}snapshots/`)).map((r) => [r.ref.slice(`${INCOMING}snapshots/`.length), r.sha]));
  try {
    for (const { sha, ref } of refs) {
      if (!ref.startsWith(`${INCOMING}files/`)) continue;
      const name = ref.slice(`${INCOMING}files/`.length);
      const shown = printable(name, 64);
      if (sanitizeName(name) !== name) {
        result.skipped.push({ name: shown, reason: 'not a checkpoint name' });
        continue;
      }
      let cp: Checkpoint;
      try {
        cp = await readPushedFile(cwd, sha, name);
        cp.plan = localPlan(cp.plan, await topOf(cwd), homeFrom());
      } catch (err) {
        result.skipped.push({ name, reason: errorMessage(err) });
        continue;
      }
      // A snapshot ref only for the commit fetched as this checkpoint's snapshot: a `snapshot:` field naming any
      // other commit (one only this machine has, say) would make the next push publish it.
      if (cp.snapshot && fetched.get(name) !== cp.snapshot) {
        result.warnings.push(`The snapshot of "${name}" is not on ${remote}; the checkpoint is written without it.`);
        delete cp.snapshot;
        delete cp.head;
      }
      const local = (await store.find(name)) ? await store.show(name).catch(() => undefined) : undefined;
      if (local && renderCheckpoint({ ...local, name }) === renderCheckpoint(cp)) {
        result.unchanged.push(name);
        continue;
      }
      // As a combined checkpoint is written: a local one of that name goes to the trash first.
      // One larger than show and resume read, once written here, is skipped (saveCombined would refuse it): not the pull.
      const size = Buffer.byteLength(renderCheckpoint(cp));
      if (size > SHOW_READ_BYTES) {
        result.skipped.push({ name, reason: `too large once written (${size} bytes)` });
        continue;
      }
      let put;
      try {
        put = await store.saveCombined(cp);
      } catch (err) {
        // A local checkpoint the lookup reads as this name (`my_task` for `my-task`): no twin is written beside it.
        if (!(err instanceof TwinNameError)) throw err;
        result.skipped.push({ name, reason: err.message });
        continue;
      }
      result.warnings.push(...put.warnings);
      const entry: PullResult['written'][number] = { name, path: put.path };
      if (put.replaced) entry.trashPath = put.replaced;
      if (cp.snapshot) {
        entry.snapshot = cp.snapshot;
        await keepSnapshot(cwd, name, cp.snapshot).catch((err: unknown) =>
          result.warnings.push(`The snapshot of "${name}" is fetched but no ref keeps it: ${errorMessage(err).trim().split('\n')[0]}`),
        );
      }
      result.written.push(entry);
    }
  } finally {
    // The fetched refs were only a way in: the snapshots are kept by their own refs now.
    if (refs.length) {
      await git(cwd, ['update-ref', '-z', '--stdin'], { input: refs.map((r) => `delete ${r.ref}\0${r.sha}\0`).join('') }).catch(() => undefined);
    }
  }
  return result;
}

/** The checkpoint in a pushed file commit, parsed; throws with the reason when it is not one. */
async function readPushedFile(cwd: string, commit: string, name: string): Promise<Checkpoint> {
  const spec = `${commit}:${fileNameFor(name)}`;
  const size = Number((await git(cwd, ['cat-file', '-s', spec]).catch(() => '')).trim());
  if (!Number.isSafeInteger(size) || size <= 0) throw new CheckpointError(`no ${fileNameFor(name)} in it`);
  if (size > SHOW_READ_BYTES) throw new CheckpointError(`too large (${size} bytes)`);
  const text = await git(cwd, ['cat-file', 'blob', spec]);
  const cp = parseCheckpoint(text, name);
  return { ...cp, name };
}
