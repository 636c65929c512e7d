import { join } from 'node:path';
import vscode = require('vscode');
import { TRASH_DIR } from '../../core/store';
import { tildify } from '../markdown';
import type { Services } from '../services';
import { CommandId, type DeleteAllOptions } from '../commandIds';
import { NO_CHECKPOINTS } from '../../core/wording';
import { isOptions, resolveCheckpoint, resolveFolder } from './targets';

/** Moves one checkpoint to trash (index bullet removed), with Undo. Returns the trash path. */
export async function deleteCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Delete which checkpoint? (it is moved to trash)', includeUnreadable: true });
  if (!target) return undefined;
  const { folder, name } = target;
  const trashPath = await s.model.folder(folder).delete(name, target.summary);
  if (!trashPath) {
    void vscode.window.showInformationMessage(`Checkpoint file missing (cleaned up stale entry "${name}").`);
    return undefined;
  }
  s.log.info(`Deleted ${name}: moved to ${trashPath}`);
  // Undo re-reads the file to rebuild its index bullet: not possible for unreadable or JSON files.
  const undoable = s.model.lastUndo?.trashPath === trashPath;
  void vscode.window
    .showInformationMessage(`Moved checkpoint "${name}" to trash.`, ...(undoable ? ['Undo'] : []))
    .then((choice) => {
      if (choice === 'Undo') void vscode.commands.executeCommand(CommandId.undo, { folder: folder.uri.toString(), name, trashPath });
    });
  return trashPath;
}

/** Moves every checkpoint of a folder to trash after a modal confirmation. Returns how many. */
export async function deleteAllCommand(s: Services, arg: unknown): Promise<number | undefined> {
  const folder = await resolveFolder(s, arg, 'Delete all checkpoints of which folder?');
  if (!folder) return undefined;
  const checkpoints = s.model.folder(folder);
  const store = await checkpoints.store();
  const files = await store.files();
  if (files.length === 0) {
    void vscode.window.showInformationMessage(NO_CHECKPOINTS);
    return 0;
  }
  const confirm = !(isOptions<DeleteAllOptions>(arg) && arg.confirm === false);
  if (confirm) {
    const action = 'Move to Trash';
    const choice = await vscode.window.showWarningMessage(
      `Move all ${files.length} checkpoint${files.length === 1 ? '' : 's'} of "${folder.name}" to trash?`,
      {
        modal: true,
        detail: `They go to ${tildify(join(store.memoryDir, TRASH_DIR))}/<today>/ and can be recovered from there. The Checkpoints section of MEMORY.md is removed.`,
      },
      action,
    );
    if (choice !== action) return undefined;
  }
  const count = await checkpoints.deleteAll();
  s.log.info(`Deleted all ${count} checkpoint(s) of ${folder.name} (moved to ${join(store.memoryDir, TRASH_DIR)})`);
  void vscode.window.showInformationMessage(`Moved ${count} checkpoint${count === 1 ? '' : 's'} to trash.`);
  return count;
}
