import vscode = require('vscode');

/** Context keys used in `when` clauses of package.json. */
export const ContextKey = {
  /** The current folder has an active checkpoint (status bar item). */
  hasActive: 'checkpoint.hasActive',
  /** The active checkpoint was saved on another branch than the current one. */
  branchMismatch: 'checkpoint.branchMismatch',
  /** A consumed or deleted checkpoint can be put back. */
  canUndo: 'checkpoint.canUndo',
  /**
   * Where the workspace's checkpoints are stored, for the welcome view: 'setting' | 'env' | 'claude' |
   * 'workspace' (the source of the memory directory, see core/memoryDir), 'mixed' when the folders of a
   * multi-root workspace differ; unset until resolved.
   */
  memoryDirSource: 'checkpoint.memoryDirSource',
  /**
   * With source 'claude': which of Claude Code's folders, for the welcome view: 'autoMemoryDirectory' | 'mainWorktree'
   * | 'project' (see core/memoryDir's `claudeMemoryKind`), 'mixed' when folders differ, '' when none is Claude's.
   */
  claudeMemory: 'checkpoint.claudeMemory',
} as const;

/**
 * Sets context keys, skipping values that did not change (each `setContext` is a round trip to the
 * renderer and re-evaluates every `when` clause).
 */
export class ContextKeys {
  private readonly values = new Map<string, unknown>();

  set(key: string, value: unknown): void {
    if (this.values.has(key) && this.values.get(key) === value) return;
    this.values.set(key, value);
    void vscode.commands.executeCommand('setContext', key, value);
  }

  get(key: string): unknown {
    return this.values.get(key);
  }
}
