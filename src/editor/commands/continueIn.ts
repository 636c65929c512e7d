import vscode = require('vscode');
import which from 'which';
import { claudeContinueLine } from '../../core/resumeText';

// "Continue in…" after a resume: hand the checkpoint to an agent where the user works with one. Only what this
// machine has is offered: Claude Code when `claude` is on PATH, VS Code's chat when it has a model to answer.

/** VS Code's command that opens the chat view; `{ query, isPartialQuery: true }` fills the input without sending. */
const CHAT_OPEN = 'workbench.action.chat.open';

export const CONTINUE_IN_CLAUDE = 'Continue in Claude Code';
export const CONTINUE_IN_CHAT = 'Continue in Chat';

export interface ContinueOffers {
  claude: boolean;
  chat: boolean;
}

/** What can be offered now: looked up on each resume (an install or a PATH change counts at once). */
export async function continueOffers(): Promise<ContinueOffers> {
  const [claude, chat] = await Promise.all([which('claude', { nothrow: true }).catch(() => null), chatAvailable()]);
  return { claude: claude !== null, chat };
}

/**
 * A chat that can answer: VS Code's chat command exists and a language model is available to it (Copilot signed in,
 * or another provider). Without a model the chat view does not open (a VS Code build without a chat agent) or
 * cannot answer, and the button would do nothing useful. Guarded: older VS Code versions have no `lm`.
 */
async function chatAvailable(): Promise<boolean> {
  const lm = (vscode as { lm?: Partial<typeof vscode.lm> }).lm;
  if (typeof lm?.selectChatModels !== 'function') return false;
  const [commands, models] = await Promise.all([vscode.commands.getCommands(true), Promise.resolve(lm.selectChatModels()).catch(() => [])]);
  return commands.includes(CHAT_OPEN) && models.length > 0;
}

/** A terminal in the folder running `claude 'continue <name>'` (the name quoted for the shell). */
export function continueInClaudeCode(folder: vscode.WorkspaceFolder, name: string, consumedTo?: string): vscode.Terminal {
  const terminal = vscode.window.createTerminal({ name: 'Claude Code', cwd: folder.uri, iconPath: new vscode.ThemeIcon('bookmark') });
  terminal.show();
  terminal.sendText(claudeContinueLine(name, consumedTo));
  return terminal;
}

/** Opens VS Code's chat with the resume prompt in its input, for the user to send (or edit first). */
export async function continueInChat(prompt: string): Promise<void> {
  await vscode.commands.executeCommand(CHAT_OPEN, { query: prompt, isPartialQuery: true });
}
