import type * as vscode from 'vscode';
import type { ActiveCheckpoint } from '../core/activeCheckpoint';

const ACTIVE_KEY = 'checkpoint.activeCheckpoints';
/** Per folder: the time (ISO) up to which saved checkpoints stay hidden from the status bar (its Dismiss). */
const DISMISSED_KEY = 'checkpoint.dismissedCheckpoints';
/** Memory folders whose user was told that Claude Code's auto memory is off. */
const AUTO_MEMORY_OFF_TOLD_KEY = 'checkpoint.autoMemoryOffTold';

/**
 * What the window remembers per folder, in workspaceState: the checkpoint last saved or resumed here, and the status
 * bar's Dismiss. Writes only; whoever calls fires the change event.
 */
export class CheckpointState {
  constructor(private readonly memento: vscode.Memento) {}

  /** The checkpoint last saved or resumed in this window (kept once consumed: its `path` is then in the trash). */
  recorded(key: string): ActiveCheckpoint | undefined {
    return this.memento.get<Record<string, ActiveCheckpoint>>(ACTIVE_KEY, {})[key];
  }

  /** Records (or forgets) it; `at` defaults to now. */
  async setRecorded(key: string, active: ActiveCheckpoint | undefined): Promise<void> {
    const all = { ...this.memento.get<Record<string, ActiveCheckpoint>>(ACTIVE_KEY, {}) };
    if (active) all[key] = { ...active, at: active.at ?? new Date().toISOString() };
    else delete all[key];
    await this.memento.update(ACTIVE_KEY, all);
  }

  /** True the first time it is asked for a memory folder (to tell once that Claude Code's auto memory is off). */
  firstAutoMemoryOffNotice(dir: string): boolean {
    const told = this.memento.get<string[]>(AUTO_MEMORY_OFF_TOLD_KEY, []);
    if (told.includes(dir)) return false;
    void this.memento.update(AUTO_MEMORY_OFF_TOLD_KEY, [...told, dir]);
    return true;
  }

  dismissedUntil(key: string): string | undefined {
    return this.memento.get<Record<string, string>>(DISMISSED_KEY, {})[key];
  }

  /** Writes the Dismiss when it changes; true when it did. */
  async setDismissed(key: string, until: string | undefined): Promise<boolean> {
    const all = { ...this.memento.get<Record<string, string>>(DISMISSED_KEY, {}) };
    if (all[key] === until) return false;
    if (until) all[key] = until;
    else delete all[key];
    await this.memento.update(DISMISSED_KEY, all);
    return true;
  }
}
