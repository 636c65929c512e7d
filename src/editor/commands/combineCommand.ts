import vscode = require('vscode');
import type { CombineResult } from '../../core/combine';
import { CheckpointError } from '../../core/errors';
import { printable } from '../../core/names';
import { previewName } from '../../core/saveForm';
import { branchAndTime } from '../../core/wording';
import { CommandId, type CombineOptions } from '../commandIds';
import type { Services } from '../services';
import { isItemNode, isOptions, resolveFolder } from './targets';

interface SourceItem extends vscode.QuickPickItem {
  source?: string;
}

const TRASH_LABEL = '$(trash) Move the combined checkpoints to the trash';

/**
 * Combine… (core `combine` through the folder's write path). With an options object: directly. From the
 * tree: the selected checkpoints (`canSelectMany`: VS Code passes the clicked node and the whole selection) come
 * preselected in the pick list. The pick list takes several checkpoints and a "move to the trash" checkbox; then the
 * new name is asked. Returns the new checkpoint's path, or undefined when cancelled.
 */
export async function combineCommand(s: Services, arg: unknown, selection?: unknown): Promise<string | undefined> {
  if (isOptions<CombineOptions>(arg) && typeof arg.name === 'string' && Array.isArray(arg.sources)) {
    const folder = s.model.folderFromOption(arg.folder);
    return runCombine(s, folder, arg.name, arg.sources, arg.trashSources === true);
  }
  const nodes = (Array.isArray(selection) ? selection : [arg]).filter(isItemNode);
  const folder = nodes[0]?.folder ?? (await resolveFolder(s, arg, 'Combine checkpoints of which folder?'));
  if (!folder) return undefined;
  const preselected = new Set(nodes.filter((n) => n.folder.uri.toString() === folder.uri.toString()).map((n) => n.summary.name));
  const picked = await pickSources(s, folder, preselected);
  if (!picked) return undefined;
  const existing = new Set(picked.all);
  const name = await vscode.window.showInputBox({
    title: 'Combine Checkpoints',
    prompt: `Name of the combined checkpoint (from ${picked.sources.map((n) => printable(n, 40)).join(', ')})`,
    value: previewName(`${picked.sources[0]}-combined`).name,
    ignoreFocusOut: true,
    validateInput: (v) => {
      const p = previewName(v);
      if (p.error) return { message: p.error, severity: vscode.InputBoxValidationSeverity.Error };
      if (existing.has(p.name)) return { message: `"${p.name}" exists: it is moved to the trash first.`, severity: vscode.InputBoxValidationSeverity.Warning };
      return undefined;
    },
  });
  if (name === undefined) return undefined;
  return runCombine(s, folder, name, picked.sources, picked.trashSources);
}

/** The multi-select pick list: the folder's checkpoints and the trash checkbox. Undefined when cancelled. */
async function pickSources(
  s: Services,
  folder: vscode.WorkspaceFolder,
  preselected: Set<string>,
): Promise<{ sources: string[]; trashSources: boolean; all: string[] } | undefined> {
  const summaries = (await s.model.folder(folder).index.list()).filter((c) => c.source === 'markdown' && !c.unreadable);
  if (summaries.length < 2) {
    const have = summaries.length ? `only ${summaries.map((c) => printable(c.name, 64)).join(', ')}` : 'none';
    throw new CheckpointError(`Combining needs at least two checkpoints; ${folder.name} has ${have}.`);
  }
  const items: SourceItem[] = summaries.map((c) => ({
    label: c.name,
    description: branchAndTime(c),
    detail: c.description,
    source: c.name,
  }));
  const trash: SourceItem = { label: TRASH_LABEL, alwaysShow: true };
  const qp = vscode.window.createQuickPick<SourceItem>();
  qp.title = 'Combine Checkpoints';
  qp.placeholder = 'Pick the checkpoints to combine (at least two)';
  qp.canSelectMany = true;
  qp.matchOnDescription = true;
  qp.matchOnDetail = true;
  qp.ignoreFocusOut = true;
  qp.items = [...items, { label: 'Options', kind: vscode.QuickPickItemKind.Separator }, trash];
  qp.selectedItems = items.filter((i) => preselected.has(i.source!));
  try {
    return await new Promise((resolve) => {
      qp.onDidAccept(() => {
        const sources = qp.selectedItems.filter((i) => i.source).map((i) => i.source!);
        if (sources.length < 2) {
          qp.placeholder = `Pick at least two checkpoints (${sources.length} picked)`;
          return;
        }
        resolve({ sources, trashSources: qp.selectedItems.includes(trash), all: summaries.map((c) => c.name) });
        qp.hide();
      });
      qp.onDidHide(() => resolve(undefined));
      qp.show();
    });
  } finally {
    qp.dispose();
  }
}

async function runCombine(s: Services, folder: vscode.WorkspaceFolder, name: string, sources: string[], trashSources: boolean): Promise<string> {
  const r: CombineResult = await s.model.folder(folder).combine(name, sources, { trashSources });
  const cp = r.checkpoint;
  const names = (cp.sources ?? []).map((c) => printable(c.name, 64)).join(', ');
  s.log.info(`Combined ${names} into ${r.path}${r.replaced ? ` (previous version: ${r.replaced})` : ''}${r.trashedSources.length ? `; sources moved to ${r.trashedSources.join(', ')}` : ''}`);
  for (const w of r.warnings) {
    s.log.warn(w);
    void vscode.window.showWarningMessage(w);
  }
  const replaced = r.replaced ? ` The previous "${cp.name}" is in the trash (Undo puts it back).` : '';
  const trashed = r.trashedSources.length ? ' The sources were moved to the trash.' : '';
  const target = { folder: folder.uri.toString(), name: cp.name };
  const actions = ['Open', ...(r.replaced ? ['Undo'] : [])];
  void vscode.window.showInformationMessage(`Checkpoint "${cp.name}" combined from ${names}.${replaced}${trashed}`, ...actions).then((choice) => {
    if (choice === 'Open') void vscode.commands.executeCommand(CommandId.open, target);
    if (choice === 'Undo' && r.replaced) void vscode.commands.executeCommand(CommandId.undo, { ...target, trashPath: r.replaced, overwrite: true });
  });
  return r.path;
}
