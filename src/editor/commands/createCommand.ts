import vscode = require('vscode');
import { CheckpointError, errorMessage } from '../../core/errors';
import { oneLine } from '../../core/escaping';

/** The longest error text shown in a notification; the log has the rest. */
const MAX_MESSAGE = 400;

/** One line of at most {@link MAX_MESSAGE} characters (git's reasons span several lines). */
export function shortMessage(text: string): string {
  const line = oneLine(text);
  return line.length > MAX_MESSAGE ? `${line.slice(0, MAX_MESSAGE)}…` : line;
}

/**
 * Registers a command through the one wrapper every command uses: logs the call, returns the
 * handler's value (so tests can assert on it), and turns an error into a short message with a
 * "Show Log" action (the stack goes to the log). A user error (CheckpointError) is shown as is;
 * anything else is prefixed with the command so a bug report names it.
 */
export function createCommand(
  id: string,
  log: vscode.LogOutputChannel,
  handler: (...args: unknown[]) => Promise<unknown>,
): vscode.Disposable {
  return vscode.commands.registerCommand(id, async (...args: unknown[]) => {
    log.trace(`${id} invoked`);
    try {
      return await handler(...args);
    } catch (err) {
      const userError = err instanceof CheckpointError;
      if (userError) log.warn(`${id}: ${errorMessage(err)}`);
      else log.error(`${id} failed:`, err instanceof Error ? (err.stack ?? err.message) : String(err));
      const text = shortMessage(userError ? errorMessage(err) : `Checkpoint: ${id} failed: ${errorMessage(err)}`);
      void vscode.window.showErrorMessage(text, 'Show Log').then((choice) => {
        if (choice) log.show(true);
      });
      return undefined;
    }
  });
}
