import * as path from 'node:path';
import vscode = require('vscode');
import type { Checkpoint } from '../core/checkpoint';
import { errorMessage } from '../core/errors';
import { oneLine } from '../core/escaping';
import { loadCore } from '../loadCore';
import type { Services } from '../services';

/**
 * A checkpoint as a person reads it: a read-only document `checkpoint:/<file name>?{"folder","name"}` holding the
 * product's Markdown body (no front matter: no raw UTC time, object ids or repeated name), shown in VS Code's
 * Markdown preview. Its text is kept from the moment it was shown, so the view stays right when the file moves to
 * the trash (a resume) and back (Undo).
 */
export const CHECKPOINT_SCHEME = 'checkpoint';

const shown = new Map<string, string>();
const changed = new vscode.EventEmitter<vscode.Uri>();

function viewUri(folder: vscode.WorkspaceFolder, file: string, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${path.basename(file)}`, query: JSON.stringify({ folder: folder.uri.toString(), name }) });
}

/**
 * Serves the documents of {@link showCheckpoint}. One not shown in this session (a preview VS Code restored) is read
 * from the folder's memory folder, or says that the checkpoint is gone.
 */
export function registerCheckpointView(s: Services): vscode.Disposable {
  const provider = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, {
    onDidChange: changed.event,
    async provideTextDocumentContent(uri: vscode.Uri): Promise<string> {
      const kept = shown.get(uri.toString());
      if (kept !== undefined) return kept;
      let query: { folder?: unknown; name?: unknown };
      try {
        query = JSON.parse(uri.query) as typeof query;
      } catch {
        query = {};
      }
      const folder = s.model.folders().find((f) => f.uri.toString() === query.folder);
      const name = typeof query.name === 'string' ? query.name : '';
      try {
        if (folder && name) return (await loadCore()).renderCheckpointBody(await (await s.model.folder(folder).store()).show(name));
      } catch (err) {
        s.log.info(`Could not show checkpoint ${oneLine(name)}: ${errorMessage(err)}`);
      }
      return `Checkpoint "${oneLine(name)}" is no longer in the memory folder (resumed or deleted).\n`;
    },
  });
  return vscode.Disposable.from(provider, changed, { dispose: () => shown.clear() });
}

/** Shows a checkpoint rendered (Markdown preview, else its text read-only), beside the active editor when `beside`. */
export async function showCheckpoint(folder: vscode.WorkspaceFolder, file: string, cp: Checkpoint, beside: boolean): Promise<void> {
  const uri = viewUri(folder, file, cp.name);
  const key = uri.toString();
  const text = (await loadCore()).renderCheckpointBody(cp);
  const before = shown.get(key);
  shown.set(key, text);
  if (before !== undefined && before !== text) changed.fire(uri); // an open view of an earlier version updates
  try {
    await vscode.commands.executeCommand(beside ? 'markdown.showPreviewToSide' : 'markdown.showPreview', uri);
  } catch {
    // No Markdown preview (its built-in extension disabled): the same text, read-only, in an editor.
    await vscode.window.showTextDocument(uri, { preview: true, viewColumn: beside ? vscode.ViewColumn.Beside : undefined });
  }
}

/**
 * Undo put a trashed checkpoint back: an editor still open on the trash path (the file is gone from there) is
 * reopened on the restored file, in its place. A tab with unsaved changes is left as it is.
 */
export async function reopenRestored(trashPath: string, restored: string): Promise<void> {
  for (const group of vscode.window.tabGroups.all) {
    const stale = group.tabs.filter((t) => t.input instanceof vscode.TabInputText && t.input.uri.scheme === 'file' && t.input.uri.fsPath === trashPath && !t.isDirty);
    if (stale.length === 0) continue;
    await vscode.window.tabGroups.close(stale, true);
    await vscode.window.showTextDocument(vscode.Uri.file(restored), { viewColumn: group.viewColumn, preview: stale.every((t) => t.isPreview), preserveFocus: true });
  }
}
