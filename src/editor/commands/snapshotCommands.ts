import { join } from 'node:path';
import vscode = require('vscode');
import { isObjectId } from '../../core/checkpoint';
import { CheckpointError } from '../../core/errors';
import { oneLine } from '../../core/escaping';
import { isInside } from '../../core/files';
import { changesBetween, changesSince, checkpointSnapshot, fileAt, leftOutAsLarge, repoTop, type SnapshotChange } from '../../core/snapshot/reading';
import { CommandId, SNAPSHOT_SCHEME, type CompareResult, type HandoffOptions, type RestoreToBranchOptions } from '../commandIds';
import type { FolderCheckpoints } from '../folderCheckpoints';
import type { Services } from '../services';
import { isItemNode, isOptions, resolveCheckpoint, resolveFolder, type CheckpointTarget } from './targets';

/** The URI of a file as a commit holds it. */
function snapshotUri(top: string, commit: string, file: string): vscode.Uri {
  return vscode.Uri.from({ scheme: SNAPSHOT_SCHEME, path: `/${file}`, query: JSON.stringify({ top, commit }) });
}

/**
 * A file of a commit (`git cat-file blob <commit>:<path>`) for a {@link snapshotUri}: what the `checkpoint-snapshot`
 * content provider (registerCommands.ts) serves. A content provider's documents are read-only. Only in a trusted
 * workspace, and only for a repository of one of its folders.
 */
export async function snapshotContent(s: Services, uri: vscode.Uri): Promise<string> {
  requireGit(s);
  let query: { top?: unknown; commit?: unknown };
  try {
    query = JSON.parse(uri.query) as typeof query;
  } catch {
    query = {};
  }
  const { top, commit } = query;
  const ours = typeof top === 'string' && s.model.folders().some((f) => isInside(top, f.uri.fsPath) || isInside(f.uri.fsPath, top));
  if (!ours || !isObjectId(commit)) throw new CheckpointError(`Not a snapshot document of this workspace: ${oneLine(uri.toString())}`);
  return (await fileAt(top, commit, uri.path.slice(1))).toString('utf8');
}

type Resource = [vscode.Uri, vscode.Uri | undefined, vscode.Uri | undefined];

/** Opens VS Code's multi-file diff editor (`vscode.changes`); nothing changed: a message says so. */
async function showChanges(title: string, changes: SnapshotChange[], sides: (c: SnapshotChange) => Resource, none: string, skipped: string[] = []): Promise<CompareResult> {
  const resources = changes.map(sides);
  if (resources.length === 0) void vscode.window.showInformationMessage(none);
  else await vscode.commands.executeCommand('vscode.changes', title, resources);
  // Files left out as too large: the diff alone would show one the snapshot holds as deleted.
  const note = leftOutAsLarge(skipped);
  if (note) void vscode.window.showWarningMessage(note);
  return { title, files: changes.map((c, i) => ({ ...c, original: resources[i][1]?.toString(), modified: resources[i][2]?.toString() })), skipped };
}

function requireGit(s: Services): void {
  if (!s.model.trusted) throw new CheckpointError('Git does not run in Restricted Mode: trust this workspace to use code snapshots.');
}

/** The checkpoint a command acts on, with its snapshot (an error when it has none, or the repository lacks it). */
async function snapshotTarget(s: Services, arg: unknown, placeHolder: string): Promise<(CheckpointTarget & { commit: string; head?: string; cwd: string; memoryDir: string }) | undefined> {
  requireGit(s);
  const t = await resolveCheckpoint(s, arg, { placeHolder, markdownOnly: true });
  if (!t) return undefined;
  const store = await s.model.folder(t.folder).store();
  const { checkpoint, commit } = await checkpointSnapshot(store, t.name);
  return { ...t, name: checkpoint.name, commit, head: checkpoint.head, cwd: store.cwd, memoryDir: store.memoryDir };
}

/** **Compare with Now**: the snapshot against the work tree, in VS Code's multi-file diff. */
export async function compareWithNowCommand(s: Services, arg: unknown): Promise<CompareResult | undefined> {
  const t = await snapshotTarget(s, arg, 'Compare which checkpoint with the work tree now?');
  if (!t) return undefined;
  // The memory folder is left out of the work tree now, as a save leaves it out of its snapshot.
  const { top, changes, skipped } = await changesSince(t.cwd, t.commit, { memoryDir: t.memoryDir });
  return showChanges(
    `Checkpoint "${oneLine(t.name)}" ↔ Now`,
    changes,
    (c) => {
      const file = vscode.Uri.file(join(top, c.path));
      return [file, c.status === 'A' ? undefined : snapshotUri(top, t.commit, c.path), c.status === 'D' ? undefined : file];
    },
    `No changes since the snapshot of "${oneLine(t.name)}".`,
    skipped,
  );
}

/** **Compare with Saved HEAD**: what the snapshot held beyond the commit that was HEAD when it was saved. */
export async function compareWithSavedHeadCommand(s: Services, arg: unknown): Promise<CompareResult | undefined> {
  const t = await snapshotTarget(s, arg, 'Compare which checkpoint with the commit it was saved on?');
  if (!t) return undefined;
  const top = (await repoTop(t.cwd)) ?? t.cwd;
  const head = t.head ?? '';
  return showChanges(
    `Checkpoint "${oneLine(t.name)}" ↔ ${head ? head.slice(0, 7) : 'no commit'}`,
    await changesBetween(top, head, t.commit),
    (c) => [
      vscode.Uri.file(join(top, c.path)),
      c.status === 'A' || !head ? undefined : snapshotUri(top, head, c.path),
      c.status === 'D' ? undefined : snapshotUri(top, t.commit, c.path),
    ],
    `The snapshot of "${oneLine(t.name)}" holds no changes beyond the commit it was saved on.`,
  );
}

/**
 * **Restore to a New Branch**: creates `checkpoint/<name>` at the snapshot (never moving an existing branch; the
 * work tree is not touched), then offers to check it out. `{ checkout: true | false }` decides without asking.
 * Returns the branch.
 */
export async function restoreToBranchCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const t = await snapshotTarget(s, arg, 'Restore which checkpoint to a new branch?');
  if (!t) return undefined;
  const branch = await s.model.folder(t.folder).branchFromSnapshot(t.name, t.commit);
  s.log.info(`Created ${branch} at ${t.commit} (the snapshot of ${t.name})`);
  const given = isOptions<RestoreToBranchOptions>(arg) && typeof arg.checkout === 'boolean' ? arg.checkout : undefined;
  const checkout =
    given ??
    (await vscode.window.showInformationMessage(`Created branch ${oneLine(branch)} at the snapshot of "${oneLine(t.name)}". Your work tree is unchanged.`, 'Check Out')) ===
      'Check Out';
  // Through Switch Branch: git refuses a checkout that would overwrite local changes, and says why.
  if (checkout) await vscode.commands.executeCommand(CommandId.switchBranch, { folder: t.folder.uri.toString(), branch });
  return branch;
}

/**
 * The folder of a push or pull (asked when there are several), then `run` on its checkpoints with a progress
 * notification; warnings are shown one each. Undefined when the folder pick is cancelled.
 */
async function handoff<R extends { warnings: string[] }>(
  s: Services,
  arg: unknown,
  ask: { placeHolder: string; progress: string },
  run: (checkpoints: FolderCheckpoints, opts: HandoffOptions) => Promise<R>,
): Promise<R | undefined> {
  requireGit(s);
  const folder = await resolveFolder(s, arg, ask.placeHolder);
  if (!folder) return undefined;
  const opts = isOptions<HandoffOptions>(arg) ? arg : {};
  const r = await vscode.window.withProgress({ location: vscode.ProgressLocation.Notification, title: ask.progress }, () => run(s.model.folder(folder), opts));
  for (const w of r.warnings) void vscode.window.showWarningMessage(oneLine(w));
  return r;
}

/** **Push to Remote**: a checkpoint (from the tree, or `{ name }`) or all of the folder's, with their snapshots. */
export async function pushCommand(s: Services, arg: unknown): Promise<string[] | undefined> {
  const r = await handoff(s, arg, { placeHolder: 'Push the checkpoints of which folder?', progress: 'Pushing checkpoints…' }, (checkpoints, opts) =>
    checkpoints.push(isItemNode(arg) ? [arg.summary.name] : typeof opts.name === 'string' ? [opts.name] : [], opts.remote),
  );
  if (!r) return undefined;
  const pushed = r.pushed.map((p) => p.name);
  s.log.info(`Pushed ${pushed.join(', ')} to ${oneLine(r.remote)}`);
  for (const h of r.heldBack) void vscode.window.showWarningMessage(oneLine(`Held back ${h.snapshotOnly ? `the snapshot of "${h.name}"` : `"${h.name}"`}: ${h.reason}.`));
  void vscode.window.showInformationMessage(`Pushed ${pushed.length} checkpoint(s) to ${oneLine(r.remote)}. On another machine: Checkpoint: Pull from Remote.`);
  return pushed;
}

/** **Pull from Remote**: the checkpoints pushed to the remote, into this folder's memory folder. */
export async function pullCommand(s: Services, arg: unknown): Promise<string[] | undefined> {
  const r = await handoff(s, arg, { placeHolder: 'Pull checkpoints into which folder?', progress: 'Pulling checkpoints…' }, (checkpoints, opts) =>
    checkpoints.pull(opts.remote),
  );
  if (!r) return undefined;
  for (const k of r.skipped) void vscode.window.showWarningMessage(oneLine(`Skipped "${k.name}": ${k.reason}`));
  const written = r.written.map((w) => w.name);
  const trashed = r.written.filter((w) => w.trashPath).map((w) => w.name);
  s.log.info(`Pulled ${written.join(', ') || 'nothing new'} from ${oneLine(r.remote)}`);
  void vscode.window.showInformationMessage(
    written.length
      ? `Pulled ${written.length} checkpoint(s) from ${oneLine(r.remote)}${trashed.length ? `; the local ${trashed.join(', ')} went to the trash first` : ''}.`
      : `Nothing new on ${oneLine(r.remote)}.`,
  );
  return written;
}
