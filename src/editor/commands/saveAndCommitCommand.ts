import vscode = require('vscode');
import type { CommitResult } from '../../core/commit';
import { CheckpointError, errorMessage } from '../../core/errors';
import type { SaveAndCommitOptions } from '../commandIds';
import type { Services } from '../services';
import { commitType, pushAfterCommit } from '../settings';
import { shortMessage } from './createCommand';
import { saveCommand } from './saveCommand';
import { isOptions, resolveFolder } from './targets';

/** What the command returns (for tests): the saved file, the commit or why there is none, and what it showed. */
export interface SaveAndCommitOutcome {
  path: string;
  commit?: CommitResult;
  /** Why nothing was committed (the checkpoint stays saved), or why the push failed. */
  error?: string;
  /** The notification shown. */
  message: string;
}

/**
 * Save and Commit: the Save form (or its options), then the folder's commit step (core `commitWork`:
 * likely secrets and the memory folder left out) and, with `checkpoint.commit.push` (or `push` in the options), a
 * push; with cancellable progress. A refused commit keeps the checkpoint and says why, with git's and its hook's
 * output (all of it in the log).
 */
export async function saveAndCommitCommand(s: Services, arg: unknown): Promise<SaveAndCommitOutcome | undefined> {
  // Refused before the form: nothing is saved when the commit could never run.
  if (!s.model.trusted) throw new CheckpointError('Save and Commit runs git, which never runs in Restricted Mode: trust this workspace first.');
  const options = isOptions<SaveAndCommitOptions>(arg) && typeof arg.name === 'string' ? arg : undefined;
  const folder = options ? s.model.folderFromOption(options.folder) : await resolveFolder(s, arg, 'Save and commit which folder?');
  if (!folder) return undefined;
  const path = await saveCommand(s, options ?? folder.uri, false);
  if (!path) return undefined;
  const checkpoints = s.model.folder(folder);
  const cp = await (await checkpoints.store()).read(path);
  const push = options?.push ?? pushAfterCommit(folder);
  let commit: CommitResult;
  try {
    commit = await vscode.window.withProgress(
      { location: vscode.ProgressLocation.Notification, title: push ? 'Checkpoint: committing and pushing…' : 'Checkpoint: committing…', cancellable: true },
      (_progress, token) => {
        const abort = new AbortController();
        token.onCancellationRequested(() => abort.abort());
        return checkpoints.commit(cp, { push, signal: abort.signal, type: commitType(folder) });
      },
    );
  } catch (err) {
    const error = errorMessage(err);
    s.log.warn(`Save and Commit: ${path} saved; ${error}`);
    const message = shortMessage(`Checkpoint "${cp.name}" saved, not committed. ${error}`);
    void vscode.window.showErrorMessage(message, 'Show Log').then((choice) => {
      if (choice) s.log.show(true);
    });
    return { path, error, message };
  }
  s.log.info(`Committed ${commit.hash} on ${commit.branch}: ${commit.subject}${commit.leftOut.length ? ` (left out: ${commit.leftOut.join(', ')})` : ''}${commit.pushed ? '; pushed' : ''}`);
  const leftOut = commit.leftOut.length ? ` Left out as likely secrets: ${commit.leftOut.join(', ')}.` : '';
  for (const w of commit.warnings) s.log.warn(w);
  if (commit.warnings.length) void vscode.window.showWarningMessage(shortMessage(commit.warnings.join(' ')));
  if (commit.pushError) {
    s.log.warn(`Push failed: ${commit.pushError}`);
    const message = shortMessage(`Committed ${commit.hash.slice(0, 7)}, but the push failed: ${commit.pushError}${leftOut}`);
    void vscode.window.showWarningMessage(message, 'Show Log').then((choice) => {
      if (choice) s.log.show(true);
    });
    return { path, commit, error: commit.pushError, message };
  }
  const message = shortMessage(`Committed ${commit.hash.slice(0, 7)}${commit.pushed ? ' and pushed' : ''}: ${commit.subject}.${leftOut}`);
  void vscode.window.showInformationMessage(message);
  return { path, commit, message };
}
