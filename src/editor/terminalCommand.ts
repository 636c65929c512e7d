import { delimiter, join } from 'node:path';
import vscode = require('vscode');
import { errorMessage } from '../core/errors';
import { shellQuote } from '../core/escaping';
import { writeLaunchers, type Launchers } from '../core/launcher';

/**
 * The `checkpoint` command in VS Code's integrated terminals: a launcher in the extension's global storage that runs
 * this extension's `dist/cli.js` with the editor's own runtime, rewritten at every activation (so it follows
 * updates), and its folder put first on the terminals' PATH.
 */
export class TerminalCommand implements vscode.Disposable {
  readonly binDir: string;
  private written?: Promise<Launchers>;

  constructor(
    private readonly context: vscode.ExtensionContext,
    private readonly log: vscode.LogOutputChannel,
  ) {
    this.binDir = join(context.globalStorageUri.fsPath, 'bin');
    // Set at once (no I/O): terminals opened from now on get it; VS Code keeps it for restored terminals too.
    const env = context.environmentVariableCollection;
    env.description = 'Puts the `checkpoint` command on PATH (Checkpoint extension).';
    env.prepend('PATH', `${this.binDir}${delimiter}`);
  }

  /** Writes the launchers (once per activation); resolves with where they are. */
  launchers(): Promise<Launchers> {
    if (!this.written) {
      const writing = writeLaunchers(this.binDir, { execPath: process.execPath, cliPath: this.context.asAbsolutePath(join('dist', 'cli.js')) });
      this.written = writing;
      writing.then(
        (l) => this.log.info(`Command line: ${l.dir} (on the integrated terminals' PATH)`),
        (err) => {
          this.log.warn(`Command line: the launcher could not be written to ${this.binDir}: ${errorMessage(err)}`);
          if (this.written === writing) this.written = undefined;
        },
      );
    }
    return this.written;
  }

  /** The command that runs the CLI, as a shell word for Claude Code's hook settings. */
  async program(): Promise<string> {
    const l = await this.launchers();
    const file = process.platform === 'win32' ? l.cmd : l.posix;
    return process.platform === 'win32' ? `"${file}"` : shellQuote(file);
  }

  dispose(): void {
    // The PATH contribution stays (it is persistent) so restored terminals keep it; nothing else to release.
  }
}
