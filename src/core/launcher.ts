import { promises as fs } from 'node:fs';
import { join, resolve } from 'node:path';
import { CheckpointError } from './errors';
import { readSmallFile, removeFile, writeFileAtomic } from './files';
import { shellQuote } from './escaping';

/**
 * The `checkpoint` command on PATH: a small launcher that runs the CLI bundle (`dist/cli.js`) with the editor's own
 * runtime (`process.execPath` with `ELECTRON_RUN_AS_NODE=1`), so no separate Node.js is needed. The editor writes it
 * into its storage at every start, so it follows extension updates.
 */
export interface LauncherTarget {
  /** The runtime: the editor's `process.execPath` (or node). */
  execPath: string;
  /** The CLI bundle, `dist/cli.js`. */
  cliPath: string;
}

export const LAUNCHER_MARK = 'Checkpoint command line';

/** The POSIX sh launcher. */
export function posixLauncher(t: LauncherTarget): string {
  return [
    '#!/bin/sh',
    `# ${LAUNCHER_MARK}: written by the Checkpoint extension at every start (changes are overwritten).`,
    `ELECTRON_RUN_AS_NODE=1 exec ${shellQuote(t.execPath)} ${shellQuote(t.cliPath)} "$@"`,
    '',
  ].join('\n');
}

/** A path as one argument of a cmd.exe line: double-quoted, `%` doubled (paths cannot hold `"`). */
function cmdWord(p: string): string {
  if (p.includes('"')) throw new CheckpointError(`The path ${p} cannot be used in a Windows launcher.`);
  return `"${p.replace(/%/g, '%%')}"`;
}

/** The Windows launcher (`checkpoint.cmd`). */
export function windowsLauncher(t: LauncherTarget): string {
  return ['@echo off', `rem ${LAUNCHER_MARK}: written by the Checkpoint extension at every start (changes are overwritten).`, 'setlocal', 'set ELECTRON_RUN_AS_NODE=1', `${cmdWord(t.execPath)} ${cmdWord(t.cliPath)} %*`, ''].join('\r\n');
}

export interface Launchers {
  /** The folder to put on PATH. */
  dir: string;
  posix: string;
  cmd: string;
}

/** Writes both launchers into `dir` (atomically; the sh one executable). */
export async function writeLaunchers(dir: string, t: LauncherTarget): Promise<Launchers> {
  await fs.mkdir(dir, { recursive: true });
  const posix = join(dir, 'checkpoint');
  const cmd = join(dir, 'checkpoint.cmd');
  await writeFileAtomic(posix, posixLauncher(t));
  await fs.chmod(posix, 0o755);
  await writeFileAtomic(cmd, windowsLauncher(t));
  return { dir, posix, cmd };
}

/** True when `file` is one of our launchers or a link to one (so it may be replaced). */
async function isOurs(file: string): Promise<boolean> {
  const st = await fs.lstat(file).catch(() => undefined);
  if (!st) return false;
  if (st.isSymbolicLink()) {
    const target = await fs.readlink(file);
    return /(^|[/\\])checkpoint(\.cmd)?$/.test(target);
  }
  if (!st.isFile() || st.size > 4096) return false;
  return (await readSmallFile(file, 4096).catch(() => '')).includes(LAUNCHER_MARK);
}

/**
 * Links the launcher into a folder of the user's choice (e.g. `~/.local/bin`) for terminals outside the editor:
 * a symbolic link on POSIX (it follows the launcher when it is rewritten), a `.cmd` that calls it on Windows.
 * Refuses to replace a `checkpoint` there that is not ours. Returns the path written.
 */
export async function installLauncher(launchers: Launchers, targetDir: string, platform: NodeJS.Platform = process.platform): Promise<string> {
  await fs.mkdir(targetDir, { recursive: true });
  const windows = platform === 'win32';
  const target = join(targetDir, windows ? 'checkpoint.cmd' : 'checkpoint');
  if (resolve(target) === resolve(windows ? launchers.cmd : launchers.posix)) return target;
  if ((await fs.lstat(target).catch(() => undefined)) && !(await isOurs(target))) {
    throw new CheckpointError(`${target} exists and is not the Checkpoint launcher; it was left as it is.`);
  }
  if (windows) {
    await writeFileAtomic(target, ['@echo off', `rem ${LAUNCHER_MARK}: calls the launcher kept up to date by the Checkpoint extension.`, `call ${cmdWord(launchers.cmd)} %*`, ''].join('\r\n'));
    return target;
  }
  const tmp = `${target}.checkpoint-tmp-${process.pid}`;
  await removeFile(tmp);
  await fs.symlink(launchers.posix, tmp);
  await fs.rename(tmp, target);
  return target;
}
