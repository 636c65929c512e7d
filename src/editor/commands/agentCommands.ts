import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join, resolve } from 'node:path';
import vscode = require('vscode');
import { claudeTargets, connectClaude, disconnectClaude, hookProgram, planConnect, PATH_PROGRAM, pluginEnabledIn, type ConnectScope } from '../../core/claudeSettings';
import { CheckpointError } from '../../core/errors';
import { installLauncher } from '../../core/launcher';
import { tildify } from '../../core/paths';
import { CommandId } from '../commandIds';
import type { Services } from '../services';
import { isOptions } from './targets';

/** The folders on the editor's own PATH (what programs started outside its terminals search). */
const pathDirs = (): string[] => (process.env.PATH ?? '').split(delimiter).filter(Boolean).map((p) => resolve(p));

const INSTALL = 'Install Command Line…';

/** `checkpoint.installCommandLine` without UI: `{ folder: DIR }` (the folder to link `checkpoint` into). */
export interface InstallOptions {
  folder: string;
}

/**
 * Checkpoint: Install Command Line… — links the launcher into a folder of the user's choice (`~/.local/bin`
 * offered) for terminals outside VS Code. Returns the path written.
 */
export async function installCommandLineCommand(s: Services, arg: unknown): Promise<string | undefined> {
  let target = isOptions<InstallOptions>(arg) && typeof arg.folder === 'string' ? arg.folder : undefined;
  if (!target) {
    const local = join(homedir(), '.local', 'bin');
    const choose = 'Choose a Folder…';
    const pick = await vscode.window.showQuickPick([{ label: tildify(local), description: 'recommended', dir: local }, { label: choose, dir: '' }], {
      title: 'Install the checkpoint command for terminals outside VS Code',
      placeHolder: 'Folder to put `checkpoint` in (it should be on your PATH)',
    });
    if (!pick) return undefined;
    if (pick.label === choose) {
      const uri = await vscode.window.showOpenDialog({ canSelectFolders: true, canSelectFiles: false, openLabel: 'Install Here' });
      if (!uri?.[0]) return undefined;
      target = uri[0].fsPath;
    } else target = pick.dir;
  }
  const installed = await installLauncher(await s.terminalCommand.launchers(), target);
  const onPath = pathDirs().includes(resolve(target));
  void vscode.window.showInformationMessage(
    `Installed ${tildify(installed)}.${onPath ? '' : ` Add ${tildify(target)} to your PATH to run it as \`checkpoint\`.`}`,
  );
  return installed;
}

/** `checkpoint.connectClaude` / `disconnectClaude` without UI: `{ scope, folder?, sessionEnd?, confirm: true }`. */
export interface ConnectOptions {
  scope: ConnectScope;
  folder?: string;
  sessionEnd?: boolean;
  /** Skip the confirmation (tests, other commands). */
  confirm?: boolean;
}

async function pickScope(s: Services, arg: unknown, verb: string): Promise<{ scope: ConnectScope; folder: vscode.WorkspaceFolder | undefined } | undefined> {
  const opts = isOptions<ConnectOptions>(arg) ? arg : {};
  let scope = opts.scope;
  if (!scope) {
    const current = s.model.currentFolder();
    const items: (vscode.QuickPickItem & { scope: ConnectScope })[] = [];
    if (current) items.push({ label: `This workspace`, description: tildify(claudeTargets('workspace', current.uri.fsPath).settingsFile), scope: 'workspace' });
    items.push({ label: 'All my projects', description: tildify(claudeTargets('user', '').settingsFile), scope: 'user' });
    // Stays open when the focus moves (the walkthrough's step text beside it takes the focus as it loads), as every
    // other pick of the extension does.
    const pick = await vscode.window.showQuickPick(items, { title: `${verb} Claude Code`, placeHolder: 'Which Claude Code settings?', ignoreFocusOut: true });
    if (!pick) return undefined;
    scope = pick.scope;
  }
  const folder = scope === 'workspace' ? s.model.folderFromOption(opts.folder) : undefined;
  return { scope, folder };
}

/**
 * Checkpoint: Connect Claude Code… — shows what it will add, then merges the hooks into the chosen settings file
 * (never clobbering anything; a file that is not valid JSON is left untouched with a clear error) and installs
 * the skill. Returns the core's result.
 */
export async function connectClaudeCommand(s: Services, arg: unknown): Promise<Awaited<ReturnType<typeof connectClaude>> | undefined> {
  const opts = isOptions<ConnectOptions>(arg) ? arg : {};
  // The plugin brings the same hooks and skill: nothing is offered twice.
  const plugin = await pluginEnabledIn((opts.folder === undefined ? s.model.currentFolder() : s.model.folderFromOption(opts.folder))?.uri.fsPath);
  if (plugin) {
    void vscode.window.showInformationMessage(`The Checkpoint plugin is enabled in Claude Code (${tildify(plugin)}): its hooks and skill already bring checkpoints into every session, so there is nothing to connect.`);
    return { settingsChanged: false, skillWritten: false, added: [] };
  }
  const where = await pickScope(s, arg, 'Connect');
  if (!where) return undefined;
  const targets = claudeTargets(where.scope, where.folder?.uri.fsPath ?? '');
  const program = hookProgram(where.scope, await s.terminalCommand.program());
  // Workspace hooks run `checkpoint` from PATH: VS Code's terminals have it; elsewhere it must be installed.
  const hint =
    program === PATH_PROGRAM && !pathDirs().some((d) => existsSync(join(d, process.platform === 'win32' ? 'checkpoint.cmd' : 'checkpoint')))
      ? ` For Claude Code started outside VS Code's terminals, run Checkpoint: ${INSTALL}`
      : '';
  let sessionEnd = opts.sessionEnd === true;
  const plan = await planConnect(targets, program, { sessionEnd });
  if (!plan.summary.length) {
    void vscode.window.showInformationMessage(`Claude Code is already connected (${tildify(targets.settingsFile)}).`);
    return { settingsChanged: false, skillWritten: false, added: [] };
  }
  if (opts.confirm !== true) {
    const connect = 'Connect';
    const withEnd = 'Connect, and Save at Session End';
    const choice = await vscode.window.showInformationMessage(
      `Connect Claude Code to Checkpoint?`,
      {
        modal: true,
        detail: `Adds to ${tildify(targets.settingsFile)} (other settings and hooks are kept):\n${plan.summary.map((l) => `• ${l}`).join('\n')}\n\nAt start, Claude Code is told about the checkpoint waiting to be resumed; when it compacts its context, a checkpoint holding the compaction's summary is saved automatically.${program === PATH_PROGRAM ? `\n\nThe hooks run \`checkpoint\` from PATH, so the file works on every machine: VS Code's integrated terminals have it.${hint}` : ''}`,
      },
      connect,
      withEnd,
    );
    if (!choice) return undefined;
    sessionEnd = choice === withEnd;
  }
  const r = await connectClaude(targets, program, { sessionEnd });
  s.log.info(`Connected Claude Code: ${targets.settingsFile}${r.added.length ? ` (+ ${r.added.map((h) => h.event).join(', ')})` : ''}${r.skillWritten ? `, skill ${targets.skillFile}` : ''}`);
  void vscode.window.showInformationMessage(`Claude Code is connected: ${tildify(targets.settingsFile)}.${hint}`, ...(hint ? [INSTALL] : [])).then((choice) => {
    if (choice === INSTALL) void vscode.commands.executeCommand(CommandId.installCommandLine);
  });
  return r;
}

/** Checkpoint: Disconnect Claude Code — removes exactly the hooks (and the unchanged skill) Connect added. */
export async function disconnectClaudeCommand(s: Services, arg: unknown): Promise<Awaited<ReturnType<typeof disconnectClaude>> | undefined> {
  const where = await pickScope(s, arg, 'Disconnect');
  if (!where) return undefined;
  const targets = claudeTargets(where.scope, where.folder?.uri.fsPath ?? '');
  const r = await disconnectClaude(targets);
  if (!r.removedHooks && !r.skillRemoved && !r.skillKept) throw new CheckpointError(`Claude Code was not connected in ${tildify(targets.settingsFile)}.`);
  s.log.info(`Disconnected Claude Code: ${r.removedHooks} hook(s) removed from ${targets.settingsFile}${r.skillRemoved ? ', skill removed' : ''}`);
  void vscode.window.showInformationMessage(
    `Claude Code is disconnected: ${r.removedHooks} hook(s) removed from ${tildify(targets.settingsFile)}.${r.skillKept ? ` ${r.skillKept}` : ''}`,
  );
  return r;
}
