import vscode = require('vscode');
import type { ToolTarget } from '../../agent/agentTools';
import type { Services } from '../services';

/** The workspace folder a tool call names (`cwd`: a folder's path, name or URI, or a path inside one); else the current one. */
export function toolFolder(s: Services, cwd: string | undefined): vscode.WorkspaceFolder {
  if (cwd !== undefined) {
    const inside = s.model.folderByArg(cwd) ?? (cwd.startsWith('/') || /^[A-Za-z]:[\\/]/.test(cwd) ? vscode.workspace.getWorkspaceFolder(vscode.Uri.file(cwd)) : undefined);
    if (inside) return inside;
  }
  return s.model.folderFromOption(cwd);
}

/**
 * The checkpoints of the folder a language-model tool call names, through the folder's object: every write is one of
 * its writes, so the tree, the status bar and Undo react as for a palette save or resume.
 */
export async function folderToolTarget(s: Services, cwd: string | undefined): Promise<ToolTarget> {
  const folder = toolFolder(s, cwd);
  const checkpoints = s.model.folder(folder);
  const store = await checkpoints.store();
  return {
    memoryDir: store.memoryDir,
    cwd: store.cwd,
    allowGit: store.allowGit,
    list: () => checkpoints.index.list(),
    show: (name) => store.show(name),
    currentBranch: () => checkpoints.currentBranch(),
    async save(input) {
      const r = await checkpoints.save(input);
      s.log.info(`Saved ${r.path}${r.overwritten ? ' (overwritten)' : ''} (language-model tool)`);
      for (const w of r.warnings) s.log.warn(w);
      return r;
    },
    async resume(name, opts) {
      const r = await checkpoints.resume(name, { keep: opts.keep === true });
      s.log.info(`Resumed ${r.path}${r.consumed ? ` (moved to ${r.trashPath})` : ''} (language-model tool)`);
      return r;
    },
  };
}
