// Shared helpers of the integration suites (not a suite itself: runners load *.test.js only).
// They run inside a real extension host, drive the extension through commands and await events — never fixed sleeps.
import * as assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, realpathSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/extension';
import type { CheckpointNode } from '../../src/views/checkpointTree';

export const EXTENSION_ID = 'checkpoint-dev.checkpoint';
/** Generous: the extension host of a CI machine can be slow; the wait ends as soon as the event arrives. */
export const EVENT_TIMEOUT = 15_000;
export const SUITE_TIMEOUT = 60_000;

export async function activateExtension(): Promise<CheckpointApi> {
  const ext = vscode.extensions.getExtension<CheckpointApi>(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed in this extension host`);
  return ext.activate();
}

/**
 * Skips the whole suite from its `before` hook, saying why: mocha's skip() takes no reason, so the reason is
 * added to the title of each test skipped (the runner prints them as "- <suite> <test> (skipped: …)").
 * The suite's `after` hooks still run: they must cope with a `before` that stopped here.
 */
export function skipSuite(ctx: Mocha.Context, reason: string): never {
  for (const t of ctx.test?.parent?.tests ?? []) t.title += ` (skipped: ${reason})`;
  return ctx.skip();
}

/** Why a suite that writes workspace-folder settings or runs git does not run in Restricted Mode. */
export const NEEDS_TRUST = 'needs a trusted workspace: Restricted Mode ignores folder settings and runs no git';

export function firstFolder(): vscode.WorkspaceFolder {
  const folder = vscode.workspace.workspaceFolders?.[0];
  assert.ok(folder, 'the test workspace has no folder');
  return folder;
}

/**
 * Resolves once `check` holds: checked now, then after each `event`. Rejects after `timeoutMs`
 * naming `what`. Subscribes before the first check, so an event in between is not missed.
 */
export function waitFor<T>(
  event: vscode.Event<T>,
  check: () => boolean | Promise<boolean>,
  what: string,
  timeoutMs = EVENT_TIMEOUT,
): Promise<void> {
  return new Promise<void>((resolve, reject) => {
    let done = false;
    let checking = Promise.resolve();
    const finish = (err?: Error): void => {
      if (done) return;
      done = true;
      clearTimeout(timer);
      sub.dispose();
      if (err) reject(err);
      else resolve();
    };
    const run = (): void => {
      // Checks run one at a time, in order; an async check must not overlap the next one.
      checking = checking.then(async () => {
        if (done) return;
        try {
          if (await check()) finish();
        } catch (err) {
          finish(err instanceof Error ? err : new Error(String(err)));
        }
      });
    };
    const timer = setTimeout(() => finish(new Error(`Timed out after ${timeoutMs} ms waiting for ${what}`)), timeoutMs);
    const sub = event(run);
    run();
  });
}

/** A fresh temp folder (real path, so it compares equal to what the extension resolves). */
export function tempDir(prefix: string): string {
  return realpathSync(mkdtempSync(path.join(tmpdir(), `checkpoint-it-${prefix}-`)));
}

export function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, {
    cwd,
    encoding: 'utf8',
    env: { ...process.env, GIT_TERMINAL_PROMPT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  }).trim();
}

/** Makes sure the repository has a commit (so branches can be switched back and forth). */
export function ensureCommit(cwd: string): void {
  try {
    git(cwd, 'rev-parse', '--verify', '-q', 'HEAD');
  } catch {
    git(cwd, '-c', 'user.name=Checkpoint Tests', '-c', 'user.email=tests@example.invalid', '-c', 'commit.gpgsign=false',
      'commit', '-q', '--allow-empty', '-m', 'initial commit');
  }
}

export function currentBranch(cwd: string): string {
  return git(cwd, 'symbolic-ref', '--short', 'HEAD');
}

/**
 * Updates a `checkpoint.*` setting and waits until the extension host sees the new value.
 * `target` defaults to the folder's settings (the settings' resource scope).
 */
export async function setSetting(
  folder: vscode.WorkspaceFolder,
  key: string,
  value: unknown,
  target = vscode.ConfigurationTarget.WorkspaceFolder,
): Promise<void> {
  const config = (): vscode.WorkspaceConfiguration => vscode.workspace.getConfiguration('checkpoint', folder.uri);
  await config().update(key, value, target);
  const expected = value === undefined ? config().inspect(key)?.defaultValue : value;
  await waitFor(vscode.workspace.onDidChangeConfiguration, () => config().get(key) === expected, `checkpoint.${key} to become ${String(expected)}`);
}

/**
 * Points the folder's `checkpoint.memoryDirectory` at `dir` and waits until the extension resolved it; without
 * `dir`, until it resolved a directory that does not come from the setting (the default one), so that the next
 * suite does not start while it is being resolved (and listed for the status bar).
 */
export async function useMemoryDir(api: CheckpointApi, folder: vscode.WorkspaceFolder, dir: string | undefined, expected = dir): Promise<void> {
  await setSetting(folder, 'memoryDirectory', dir);
  const resolved = async (): Promise<boolean> => {
    const now = await api.model.memoryDir(folder);
    return expected === undefined ? now.source !== 'setting' : now.dir === expected;
  };
  await waitFor(api.model.onDidChange, resolved, `the memory directory ${expected ?? '(default)'}`);
}

/** The tree's nodes for a folder: the root in a single-folder workspace, the folder node's children otherwise. */
export async function folderChildren(api: CheckpointApi, folder: vscode.WorkspaceFolder): Promise<CheckpointNode[]> {
  const root = await api.tree.getChildren();
  const folderNode = root.find((n) => n.kind === 'folder' && n.folder.uri.toString() === folder.uri.toString());
  if (folderNode) return api.tree.getChildren(folderNode);
  if ((vscode.workspace.workspaceFolders?.length ?? 0) > 1) return []; // multi-root without any checkpoint
  return root;
}

export function label(api: CheckpointApi, node: CheckpointNode): string {
  const l = api.tree.getTreeItem(node).label;
  return typeof l === 'string' ? l : (l?.label ?? '');
}

export async function labels(api: CheckpointApi, folder: vscode.WorkspaceFolder): Promise<string[]> {
  return (await folderChildren(api, folder)).map((n) => label(api, n));
}

/** MEMORY.md of a memory directory ('' when there is none). */
export function readIndex(dir: string): string {
  try {
    return readFileSync(path.join(dir, 'MEMORY.md'), 'utf8');
  } catch {
    return '';
  }
}

/** Saves through the command's UI-less form. */
export function save(folder: vscode.WorkspaceFolder, opts: { name: string; leftOff: string; [k: string]: unknown }): Thenable<string | undefined> {
  return vscode.commands.executeCommand<string | undefined>('checkpoint.save', { folder: folder.uri.fsPath, ...opts });
}

export function escapeRegExp(s: string): string {
  return s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
}

/**
 * Waits until file watching delivers events in this window. VS Code gives no "watcher is live" signal: a watch
 * request is set up asynchronously (code-server starts its watcher process on first use), and a file written
 * meanwhile goes unreported. So the probe file in the memory directory is (re)written until the model reports an
 * event for it — each attempt awaits that event and ends as soon as it arrives — then removed. A watcher requested
 * before this one (git's HEAD) is live by then too.
 */
export async function watchersReady(api: CheckpointApi, folder: vscode.WorkspaceFolder, dir: string): Promise<void> {
  const probe = path.join(dir, 'checkpoint-watcher-probe.md');
  await api.model.memoryDir(folder); // the watcher is requested once the directory is resolved
  let seen = false;
  const sub = api.model.onDidChangeFiles((e) => {
    if (e.path === probe) seen = true;
  });
  try {
    for (let attempt = 1; !seen; attempt++) {
      writeFileSync(probe, `# Checkpoint: watcher-probe\n## Left Off\nprobe ${attempt}\n`);
      await waitFor(api.model.onDidChangeFiles, () => seen, 'a file event', 500).catch((err: unknown) => {
        if (attempt >= 40) throw err;
      });
    }
  } finally {
    sub.dispose();
  }
  // Wait for the watcher to report the removal itself: until then the tree may not even have added the probe
  // (its update is queued), so "not in the tree" alone could pass early and the probe appear in the next test.
  let removed = false;
  const gone = api.model.onDidChangeFiles((e) => {
    if (e.path === probe && !existsSync(probe)) removed = true;
  });
  try {
    rmSync(probe);
    await waitFor(api.model.onDidChangeFiles, () => removed, 'the event for the removed probe');
  } finally {
    gone.dispose();
  }
  // The tree applies file events one after the other: one more (a no-op for a missing file) resolves when those
  // already queued — the probe's own add among them — have run.
  await api.tree.refreshFile(folder, probe);
  await waitFor(api.tree.onDidChangeTreeData, async () => !(await labels(api, folder)).includes('watcher-probe'), 'the probe to leave the tree');
}

/** A checkpoint file as the CLI writes it (front matter, then the sections). */
export function checkpointText(name: string, leftOff: string, saved: Date, branch = 'main'): string {
  return [
    '---',
    `name: ${name}`,
    `description: ${leftOff}`,
    'type: checkpoint',
    `branch: ${branch}`,
    `saved: ${saved.toISOString()}`,
    '---',
    `# Checkpoint: ${name}`,
    `- **Branch:** \`${branch}\``,
    `- **Saved:** ${saved.toISOString()}`,
    '## Left Off',
    leftOff,
    '## Done This Session',
    '- None',
    '## Failed Approaches',
    '- None',
    '## Modified Files',
    '- None',
    '',
  ].join('\n');
}

/** Writes like the CLI: a `.checkpoint-tmp-*` file in the same directory, renamed over the target. */
export function atomicWrite(file: string, text: string): void {
  const tmp = path.join(path.dirname(file), `.checkpoint-tmp-${process.pid}-${randomBytes(6).toString('hex')}`);
  writeFileSync(tmp, text);
  renameSync(tmp, file);
}

/**
 * Runs the extension's own CLI (`dist/cli.js`) in a child process, as an agent or its hook would, and returns its
 * stdout. The extension host's executable runs it as Node (an Electron one with ELECTRON_RUN_AS_NODE).
 */
export function runCli(...args: string[]): string {
  const ext = vscode.extensions.getExtension(EXTENSION_ID);
  assert.ok(ext, `${EXTENSION_ID} is not installed in this extension host`);
  return execFileSync(process.execPath, [path.join(ext.extensionPath, 'dist', 'cli.js'), ...args], {
    encoding: 'utf8',
    env: { ...process.env, ELECTRON_RUN_AS_NODE: '1', GIT_TERMINAL_PROMPT: '0' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
}
