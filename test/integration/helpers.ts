// Shared helpers of the integration suites (not a suite itself: runners load *.test.js only).
// They run inside a real extension host, drive the extension through commands and await events — never fixed sleeps.
import * as assert from 'node:assert/strict';
import { existsSync, rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointApi } from '../../src/editor/extension';
import type { CheckpointNode } from '../../src/editor/views/nodes';
import { ensureCommit, removeDir, tempDir } from '../support/fixtures';

export const EXTENSION_ID = 'checkpoint-dev.checkpoint-for-agents';
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

/** Whether the running VS Code is `version` ("major.minor") or later. */
function vscodeAtLeast(version: string): boolean {
  const [major, minor] = vscode.version.split('.').map(Number);
  const [wantMajor, wantMinor] = version.split('.').map(Number);
  return major > wantMajor || (major === wantMajor && minor >= wantMinor);
}

/** Why a VS Code older than `needs.version` skips a suite or test: the API it needs became stable in that version. */
function tooOld(needs: { version: string; api: string } | undefined): string | undefined {
  if (!needs || vscodeAtLeast(needs.version)) return undefined;
  return `needs VS Code ${needs.version} or later for ${needs.api}; this is ${vscode.version}`;
}

/** Skips one test on a VS Code older than `version`, saying why (the suites run on the oldest VS Code supported too). */
export function skipBefore(ctx: Mocha.Context, version: string, api: string): void {
  const reason = tooOld({ version, api });
  if (!reason) return;
  if (ctx.test) ctx.test.title += ` (skipped: ${reason})`;
  ctx.skip();
}

/** Why a suite that writes workspace-folder settings or runs git does not run in Restricted Mode. */
const NEEDS_TRUST = 'needs a trusted workspace: Restricted Mode ignores folder settings and runs no git';

/** What a suite's tests work with, set by the time its first test (or `setup`) runs. */
export interface SuiteContext {
  readonly api: CheckpointApi;
  /** The workspace's first folder. */
  readonly folder: vscode.WorkspaceFolder;
  /** The first folder's path. */
  readonly cwd: string;
  /** The suite's memory directory: a temp folder set as the first folder's `checkpoint.memoryDirectory`. */
  readonly dir: string;
  /** A new temp folder, removed after the suite. */
  temp(name: string): string;
}

export interface SuiteOptions {
  /** The window the suite runs in; in another one its tests are skipped, saying why. Default: a trusted one. */
  needs?: 'trusted' | 'restricted' | 'multi-root';
  /** Give the first folder a temp memory directory (`t.dir`) for the suite, then the default back. Default true. */
  memoryDir?: boolean;
  /** Wait until file watching delivers events in the memory directory and git's HEAD (see {@link watchersReady}). */
  watchers?: boolean;
  /** Milliseconds for each test and hook (default {@link SUITE_TIMEOUT}). */
  timeout?: number;
  /** Answers dialogs or presses notification buttons in the page ({@link inWorkbench}): run-integration.mjs only. */
  workbench?: boolean;
  /** An API newer than the `engines.vscode` floor, and the VS Code version where it became stable: older ones skip. */
  since?: { version: string; api: string };
}

/** What a suite's body may add to the suite's own before/after. */
export interface SuiteHooks {
  /** More set-up, after the suite's own. */
  setup?: () => Promise<void> | void;
  /** Clean-up, before the suite's own; runs only when the suite was set up (not when the window skips it). */
  teardown?: () => Promise<void> | void;
}

/** Why a window does not run a suite, or undefined when it does. */
function skipReason(needs: SuiteOptions['needs'], workbench?: boolean): string | undefined {
  if (workbench && !process.env.CHECKPOINT_TEST_DRIVER) return 'needs the workbench driver of run-integration.mjs';
  const trusted = vscode.workspace.isTrusted;
  if (needs === 'restricted') return trusted ? 'needs Restricted Mode: run-integration.mjs --trust' : undefined;
  if (needs === 'multi-root' && (vscode.workspace.workspaceFolders?.length ?? 0) < 2) return 'needs a multi-root workspace: run-integration.mjs --multi-root';
  return trusted ? undefined : NEEDS_TRUST;
}

/**
 * An integration suite: activates the extension, makes sure every folder's repository has a commit (trusted
 * windows), gives the first folder a temp memory directory, and undoes all of it afterwards — the before/after
 * every suite needs, written once. `body` declares the tests (`it`), reads `t` inside them, and may return more
 * set-up and clean-up.
 */
export function suite(title: string, opts: SuiteOptions, body: (t: SuiteContext) => SuiteHooks | void): void {
  describe(title, function () {
    this.timeout(opts.timeout ?? SUITE_TIMEOUT);
    const temps: string[] = [];
    const ctx = {
      temp(name: string): string {
        const dir = tempDir(`checkpoint-it-${name}-`);
        temps.push(dir);
        return dir;
      },
    } as { -readonly [K in keyof SuiteContext]: SuiteContext[K] };
    let setUp = false;
    const slug = title.toLowerCase().replace(/[^a-z0-9]+/g, '-').replace(/^-|-$/g, '').slice(0, 24);

    before(async function () {
      const reason = tooOld(opts.since) ?? skipReason(opts.needs, opts.workbench);
      if (reason) skipSuite(this, reason);
      ctx.api = await activateExtension();
      const folders = vscode.workspace.workspaceFolders ?? [];
      assert.ok(folders[0], 'the test workspace has no folder');
      ctx.folder = folders[0];
      ctx.cwd = ctx.folder.uri.fsPath;
      if (vscode.workspace.isTrusted) for (const f of folders) ensureCommit(f.uri.fsPath);
      setUp = true;
      if (opts.memoryDir ?? true) {
        ctx.dir = ctx.temp(slug);
        await useMemoryDir(ctx.api, ctx.folder, ctx.dir);
        // Reading the branch starts the watcher on git's HEAD first: the probe then shows that one is live too.
        if (opts.watchers) await ctx.api.model.folder(ctx.folder).currentBranch();
        if (opts.watchers) await watchersReady(ctx.api, ctx.folder, ctx.dir);
      }
      await hooks.setup?.();
    });

    const hooks = body(ctx) ?? {};

    after(async () => {
      if (!setUp) return; // skipped
      try {
        await hooks.teardown?.();
        if (ctx.dir) await useMemoryDir(ctx.api, ctx.folder, undefined);
      } finally {
        for (const dir of temps) removeDir(dir);
      }
    });
  });
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

/** Runs a shell command line in an integrated terminal (the PATH VS Code gives terminals) and resolves when it exits. */
export async function inTerminal(commandLine: string): Promise<void> {
  const terminal = vscode.window.createTerminal({ name: 'checkpoint test', shellPath: '/bin/sh', shellArgs: ['-c', commandLine] });
  let closed = false;
  const sub = vscode.window.onDidCloseTerminal((t) => {
    if (t === terminal) closed = true;
  });
  try {
    await waitFor(vscode.window.onDidCloseTerminal, () => closed, 'the terminal to exit', 30_000);
  } finally {
    sub.dispose();
  }
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
    const now = await api.model.folder(folder).memoryDir();
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
  await api.model.folder(folder).memoryDir(); // the watcher is requested once the directory is resolved
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
  await api.model.folder(folder).refreshFile(probe);
  await waitFor(api.tree.onDidChangeTreeData, async () => !(await labels(api, folder)).includes('watcher-probe'), 'the probe to leave the tree');
}

/** What a person read in the page, and the buttons there were (notifications). */
export interface WorkbenchReply {
  text: string;
  buttons?: string[];
  /** How many notifications (or elements) showing `text` are visible. */
  count?: number;
  /** Where the notification was read: its toast, or the notification center (VS Code did not toast it). */
  where?: 'toast' | 'center';
}

/**
 * Does in the workbench page what a person does, through the runner's driver (scripts/harness/workbench-driver.mjs): waits
 * for the modal dialog or for the notification containing `text`, returns what it says, and presses `button`;
 * counts the notifications showing `text`; reads the element at `selector` once it shows `text`.
 */
export async function inWorkbench(
  request:
    | { action: 'dialog'; button?: string }
    | { action: 'notification'; text: string; button?: string }
    | { action: 'count'; text: string }
    | { action: 'text'; selector: string; text: string },
): Promise<WorkbenchReply> {
  const url = process.env.CHECKPOINT_TEST_DRIVER;
  assert.ok(url, 'no workbench driver: run the suite with scripts/harness/run-integration.mjs');
  const res = await fetch(url, { method: 'POST', body: JSON.stringify(request), signal: AbortSignal.timeout(EVENT_TIMEOUT + 5_000) });
  const body = (await res.json()) as WorkbenchReply & { error?: string };
  if (!res.ok) throw new Error(`In the workbench (${JSON.stringify(request)}): ${body.error ?? res.status}`);
  return body;
}
