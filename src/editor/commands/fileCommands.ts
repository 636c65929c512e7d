import { join } from 'node:path';
import vscode = require('vscode');
import { exists, isInside } from '../../core/files';
import { INDEX_FILE } from '../../core/memoryIndex';
import { resumePrompt } from '../../core/resumeText';
import { tildify } from '../markdown';
import type { Services } from '../services';
import { copyPrompt } from './resumeCommand';
import { resolveCheckpoint, resolveFolder, type CheckpointTarget } from './targets';

/** The file of a target: from its listing entry, else found by name. */
async function targetPath(s: Services, target: CheckpointTarget): Promise<string> {
  if (target.summary) return target.summary.path;
  const store = await s.model.folder(target.folder).store();
  return (await store.find(target.name))?.path ?? store.pathFor(target.name);
}

/** Opens a checkpoint file as text (unreadable ones too, to fix them). Returns its path. */
export async function openCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Open which checkpoint?', includeUnreadable: true, autoPickSingle: true });
  if (!target) return undefined;
  const file = await targetPath(s, target);
  await vscode.window.showTextDocument(vscode.Uri.file(file), { preview: false });
  return file;
}

/** Copies the core's resume prompt for a checkpoint to the clipboard. Returns the text. */
export async function copyResumePromptCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Copy the resume prompt of which checkpoint?', autoPickSingle: true });
  if (!target) return undefined;
  const checkpoints = s.model.folder(target.folder);
  const cp = await (await checkpoints.store()).show(target.name);
  const text = resumePrompt(cp, { currentBranch: await checkpoints.currentBranch(), path: cp.path });
  await copyPrompt(text, cp.name);
  return text;
}

/**
 * Shows a file or folder: in the Explorer when it is inside the workspace, else in the OS file manager
 * (desktop), else (remote, outside the workspace) says where it is.
 */
async function reveal(s: Services, target: string): Promise<void> {
  const uri = vscode.Uri.file(target);
  if (s.model.folders().some((f) => isInside(f.uri.fsPath, target))) {
    await vscode.commands.executeCommand('revealInExplorer', uri);
  } else if (!vscode.env.remoteName) {
    await vscode.commands.executeCommand('revealFileInOS', uri);
  } else {
    void vscode.window.showInformationMessage(`It is outside the workspace: ${tildify(target)}`, 'Copy Path').then((choice) => {
      if (choice) void vscode.env.clipboard.writeText(target);
    });
  }
}

/** Reveals a checkpoint file. Tree-only (hidden from the palette). Returns its path. */
export async function revealCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const target = await resolveCheckpoint(s, arg, { placeHolder: 'Reveal which checkpoint?', includeUnreadable: true, autoPickSingle: true });
  if (!target) return undefined;
  const file = await targetPath(s, target);
  await reveal(s, file);
  return file;
}

/**
 * Shows the folder's memory directory (Explorer, or the OS file manager; in a remote window a directory
 * outside the workspace is shown by opening its MEMORY.md). Returns the directory.
 */
export async function openMemoryFolderCommand(s: Services, arg: unknown): Promise<string | undefined> {
  const folder = await resolveFolder(s, arg, 'Open the memory folder of which folder?');
  if (!folder) return undefined;
  const { dir, source } = await s.model.folder(folder).memoryDir();
  s.log.info(`Memory directory of ${folder.name}: ${dir} (from ${source})`);
  if (!(await exists(dir))) {
    void vscode.window.showInformationMessage(`No checkpoints saved in "${folder.name}" yet; they will be stored in ${tildify(dir)}.`);
    return dir;
  }
  const index = join(dir, INDEX_FILE);
  const inWorkspace = s.model.folders().some((f) => isInside(f.uri.fsPath, dir));
  if (!inWorkspace && vscode.env.remoteName && (await exists(index))) {
    await vscode.window.showTextDocument(vscode.Uri.file(index), { preview: false });
  } else {
    await reveal(s, dir);
  }
  return dir;
}
