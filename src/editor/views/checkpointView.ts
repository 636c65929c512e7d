import { basename } from 'node:path';
import vscode = require('vscode');
import { renderCheckpointBody } from '../../core/checkpointRender';
import type { Checkpoint } from '../../core/checkpoint';
import { errorMessage } from '../../core/errors';
import { oneLine } from '../../core/escaping';
import { escapeMarkdown } from '../markdown';
import type { WorkspaceModel } from '../workspaceModel';

/**
 * A checkpoint as a person reads it: a read-only document `checkpoint:/<file name>?{"folder","name"}` holding the
 * product's Markdown body (no front matter: no raw UTC time, object ids or repeated name), shown in VS Code's
 * Markdown preview. Its text is kept from the moment it was shown, so the view stays right when the file moves to
 * the trash (a resume) and back (Undo).
 */
export const CHECKPOINT_SCHEME = 'checkpoint';

function viewUri(folder: vscode.WorkspaceFolder, file: string, name: string): vscode.Uri {
  return vscode.Uri.from({ scheme: CHECKPOINT_SCHEME, path: `/${basename(file)}`, query: JSON.stringify({ folder: folder.uri.toString(), name }) });
}

/**
 * Serves the documents of {@link CheckpointView.show}. One not shown in this session (a preview VS Code restored) is
 * read from the folder's memory folder, or says that the checkpoint is gone.
 */
export class CheckpointView implements vscode.Disposable {
  private readonly shown = new Map<string, string>();
  private readonly changed = new vscode.EventEmitter<vscode.Uri>();
  private readonly provider: vscode.Disposable;

  constructor(model: WorkspaceModel, log: vscode.LogOutputChannel) {
    this.provider = vscode.workspace.registerTextDocumentContentProvider(CHECKPOINT_SCHEME, {
      onDidChange: this.changed.event,
      provideTextDocumentContent: async (uri: vscode.Uri): Promise<string> => {
        const kept = this.shown.get(uri.toString());
        if (kept !== undefined) return kept;
        let query: { folder?: unknown; name?: unknown };
        try {
          query = JSON.parse(uri.query) as typeof query;
        } catch {
          query = {};
        }
        const folder = model.folders().find((f) => f.uri.toString() === query.folder);
        const name = typeof query.name === 'string' ? query.name : '';
        try {
          if (folder && name) return renderCheckpointBody(await (await model.folder(folder).store()).show(name));
        } catch (err) {
          log.info(`Could not show checkpoint ${oneLine(name)}: ${errorMessage(err)}`);
        }
        return `Checkpoint "${oneLine(name)}" is no longer in the memory folder (resumed or deleted).\n`;
      },
    });
  }

  /**
   * Shows a checkpoint rendered (Markdown preview, else its text read-only), beside the active editor when `beside`;
   * `since`: what changed in the repository since it was saved (see since.ts), a line under its branch and time.
   */
  async show(folder: vscode.WorkspaceFolder, file: string, cp: Checkpoint, beside: boolean, since?: string): Promise<void> {
    const uri = viewUri(folder, file, cp.name);
    const key = uri.toString();
    const body = renderCheckpointBody(cp);
    const text = since ? body.replace('\n## Left Off', `\n- **Since saved:** ${escapeMarkdown(since.replace(/^Since saved: /, ''))}\n## Left Off`) : body;
    const before = this.shown.get(key);
    this.shown.set(key, text);
    if (before !== undefined && before !== text) this.changed.fire(uri); // an open view of an earlier version updates
    try {
      await vscode.commands.executeCommand(beside ? 'markdown.showPreviewToSide' : 'markdown.showPreview', uri);
    } catch {
      // No Markdown preview (its built-in extension disabled): the same text, read-only, in an editor.
      await vscode.window.showTextDocument(uri, { preview: true, viewColumn: beside ? vscode.ViewColumn.Beside : undefined });
    }
  }

  dispose(): void {
    this.provider.dispose();
    this.changed.dispose();
    this.shown.clear();
  }
}
