import vscode = require('vscode');

const SECTION = 'checkpoint';

export type AfterResume = 'trash' | 'keep';

/** A string setting of the folder ('' when unset). */
export function folderSetting(folder: vscode.WorkspaceFolder, key: 'memoryDirectory' | 'plansDirectory'): string {
  return vscode.workspace.getConfiguration(SECTION, folder.uri).get<string>(key, '') ?? '';
}

export function afterResume(folder: vscode.WorkspaceFolder): AfterResume {
  return vscode.workspace.getConfiguration(SECTION, folder.uri).get<string>('afterResume') === 'keep' ? 'keep' : 'trash';
}

/** `checkpoint.snapshot` (a code snapshot with each save in a git repository, unless `off`) and its size limit. */
export function snapshotSetting(folder: vscode.WorkspaceFolder): { enabled: boolean; limitBytes?: number } {
  const config = vscode.workspace.getConfiguration(SECTION, folder.uri);
  const mb = config.get<number>('snapshotSizeLimitMB');
  const limitBytes = typeof mb === 'number' && Number.isFinite(mb) && mb >= 0 ? Math.round(mb * 1024 * 1024) : undefined;
  return { enabled: config.get<string>('snapshot', 'on') !== 'off', limitBytes };
}

/** `checkpoint.commit.push`: Save and Commit pushes too. */
export function pushAfterCommit(folder: vscode.WorkspaceFolder): boolean {
  return vscode.workspace.getConfiguration(SECTION, folder.uri).get<boolean>('commit.push', false) === true;
}

/** `checkpoint.commit.type`: the Conventional Commits type of Save and Commit's subject (default `chore`). */
export function commitType(folder: vscode.WorkspaceFolder): string | undefined {
  return vscode.workspace.getConfiguration(SECTION, folder.uri).get<string>('commit.type') || undefined;
}

export function statusBarEnabled(): boolean {
  return vscode.workspace.getConfiguration(SECTION).get<boolean>('statusBar.enabled', true);
}

/** True when the change touches `checkpoint.<key>` (for `folder` when given). */
export function affects(e: vscode.ConfigurationChangeEvent, key: string, folder?: vscode.WorkspaceFolder): boolean {
  return e.affectsConfiguration(`${SECTION}.${key}`, folder);
}
