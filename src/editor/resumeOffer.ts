import vscode = require('vscode');
import { CommandId } from './commandIds';
import { formatRelative } from '../core/dates';
import { errorMessage } from '../core/errors';
import { agentLine } from '../core/escaping';
import { findPending } from '../core/pending';
import { branchPlaceText, orderByBranch } from '../core/branchOrder';
import type { Services } from './services';

const OFFERED_KEY = 'checkpoint.offeredResumes';
const MAX_REMEMBERED = 200;

/**
 * When a window opens a folder whose first pending checkpoint (not resumed since it was saved) was saved outside
 * this window — by an agent, a hook, another machine's sync — a notification offers to resume it. Once per
 * checkpoint (remembered across windows); never for this window's own saves; setting `checkpoint.offerResumeOnOpen`.
 */
export class ResumeOffer {
  /** The notifications shown, in order (what a user saw; for tests). */
  readonly shown: string[] = [];

  constructor(
    private readonly s: Services,
    private readonly memento: vscode.Memento,
  ) {}

  /** Offers the pending checkpoint of each folder (at start-up); resolves once shown, not answered. Never throws. */
  async run(): Promise<void> {
    await Promise.all(
      this.s.model.folders().map((folder) =>
        this.offer(folder).catch((err) => this.s.log.warn(`Pending checkpoint of ${folder.name}: ${errorMessage(err)}`)),
      ),
    );
  }

  private async offer(folder: vscode.WorkspaceFolder): Promise<void> {
    if (!vscode.workspace.getConfiguration('checkpoint', folder).get<boolean>('offerResumeOnOpen', true)) return;
    const checkpoints = this.s.model.folder(folder);
    const store = await checkpoints.store();
    // The current branch's first, then those merged into it, then the rest (the session-start hook's order).
    const currentBranch = await checkpoints.currentBranch();
    const placed = await orderByBranch(store, (await findPending(store)).checkpoints, currentBranch);
    const pending = placed.map((p) => p.item);
    const where = (p: (typeof pending)[number], max: number): string =>
      branchPlaceText(p.branch, placed.find((x) => x.item === p)?.place ?? 'other', currentBranch, (b) => agentLine(b, max));
    // The first pending checkpoint not offered before; none when that is one this window saved (or resumed) itself.
    const own = checkpoints.recorded();
    const key = (p: { name: string; saved: string }): string => `${store.memoryDir}\u0000${p.name}\u0000${p.saved}`;
    const offered = this.memento.get<string[]>(OFFERED_KEY, []);
    const c = pending.find((p) => !offered.includes(key(p)));
    if (!c || (own && own.name === c.name && own.saved === c.saved)) return;
    await this.memento.update(OFFERED_KEY, [...offered, key(c)].slice(-MAX_REMEMBERED));
    const inFolder = this.s.model.folders().length > 1 ? ` in ${folder.name}` : '';
    // The first pending checkpoint by name, and up to two more (the session-start hook names the same ones).
    const rest = pending.filter((p) => p !== c);
    const others = rest.slice(0, 2).map((o) => `'${agentLine(o.name, 40)}' ${where(o, 40)}`);
    const more = others.length ? ` (also pending: ${others.join(', ')}${rest.length > 2 ? ` and ${rest.length - 2} more` : ''})` : '';
    const message = `Resume '${agentLine(c.name, 64)}'${inFolder} — saved ${formatRelative(c.saved)}${c.branch ? ` ${where(c, 80)}` : ''}${more}`;
    this.shown.push(message);
    this.s.log.info(`Offered to resume ${c.path}`);
    const choose = pending.length > 1 ? ['Choose…'] : [];
    // Not awaited: the notification stays until the user answers (or never does).
    void vscode.window.showInformationMessage(message, 'Resume', ...choose, 'Later').then(async (choice) => {
      if (choice === 'Resume') void vscode.commands.executeCommand(CommandId.resume, { folder: folder.uri.toString(), name: c.name });
      if (choice !== 'Choose…') return;
      const picked = await vscode.window.showQuickPick(
        pending.map((p) => ({ label: agentLine(p.name, 64), description: `${p.branch ? `${agentLine(p.branch, 60)} · ` : ''}${formatRelative(p.saved)}`, detail: agentLine(p.description, 120), name: p.name })),
        { title: 'Resume a Pending Checkpoint', placeHolder: 'Not resumed since they were saved; the one offered first is at the top' },
      );
      if (picked) void vscode.commands.executeCommand(CommandId.resume, { folder: folder.uri.toString(), name: picked.name });
    });
  }
}
