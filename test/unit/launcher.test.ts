import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { lstatSync, mkdirSync, readFileSync, readlinkSync, symlinkSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { installLauncher, posixLauncher, windowsLauncher, writeLaunchers } from '../../src/core/launcher';
import { CLI, makeRepo, removeDir, tempDir } from '../support/fixtures';

const temps: string[] = [];
after(() => temps.forEach(removeDir));

/** The folder holding the git executable found on this PATH. */
function gitOnly(into: string): string {
  const which = spawnSync('sh', ['-c', 'command -v git'], { encoding: 'utf8' }).stdout.trim();
  const dir = path.join(into, 'tools');
  mkdirSync(dir);
  symlinkSync(which, path.join(dir, 'git'));
  return dir;
}

test('the installed launcher runs the CLI from a shell whose PATH has no node', { skip: process.platform === 'win32' }, async () => {
  const root = tempDir();
  temps.push(root);
  // The editor's runtime stands in as process.execPath (node here; Electron with ELECTRON_RUN_AS_NODE in the editor).
  const launchers = await writeLaunchers(path.join(root, 'storage', 'bin'), { execPath: process.execPath, cliPath: CLI });
  const bin = path.join(root, 'home', '.local', 'bin');
  const installed = await installLauncher(launchers, bin);
  assert.equal(readlinkSync(installed), launchers.posix);
  const repo = makeRepo();
  temps.push(repo);
  const env = { PATH: `${bin}:${gitOnly(root)}`, HOME: path.join(root, 'home') };
  const script = 'if command -v node >/dev/null; then echo "node is on PATH"; exit 3; fi; checkpoint --version && checkpoint save from-shell --left-off "saved through the launcher" --dir "$HOME/mem" --json';
  const r = spawnSync('/bin/sh', ['-c', script], { cwd: repo, env, encoding: 'utf8', timeout: 30_000 });
  assert.equal(r.status, 0, r.stdout + r.stderr);
  const [version, ...json] = r.stdout.split('\n');
  assert.match(version, /^\d+\.\d+\.\d+$/);
  const saved = JSON.parse(json.join('\n')) as { name: string; branch: string };
  assert.deepEqual([saved.name, saved.branch], ['from-shell', 'main']);
  assert.match(readFileSync(path.join(root, 'home', 'mem', 'checkpoint-from-shell.md'), 'utf8'), /saved through the launcher/);

  // Rewritten at the next start (an update moved the CLI): the installed link follows.
  await writeLaunchers(launchers.dir, { execPath: process.execPath, cliPath: CLI });
  assert.equal(spawnSync('/bin/sh', ['-c', 'checkpoint --version'], { env, encoding: 'utf8' }).status, 0);
});

test('install refuses to replace a checkpoint command that is not the launcher; replaces its own', async () => {
  const root = tempDir();
  temps.push(root);
  const launchers = await writeLaunchers(path.join(root, 'bin'), { execPath: '/opt/editor/code', cliPath: '/ext/dist/cli.js' });
  const target = path.join(root, 'target');
  mkdirSync(target);
  writeFileSync(path.join(target, 'checkpoint'), '#!/bin/sh\necho another tool\n');
  await assert.rejects(installLauncher(launchers, target), /exists and is not the Checkpoint launcher/);
  assert.equal(readFileSync(path.join(target, 'checkpoint'), 'utf8'), '#!/bin/sh\necho another tool\n');
  const mine = path.join(root, 'mine');
  await installLauncher(launchers, mine);
  await installLauncher(launchers, mine);
  assert.ok(lstatSync(path.join(mine, 'checkpoint')).isSymbolicLink());
});

test('launcher texts: the editor runtime as node, paths quoted for sh and cmd.exe', () => {
  const t = { execPath: "/Applications/Visual Studio Code.app/Contents/MacOS/Electron's", cliPath: '/ext/dist/cli.js' };
  const sh = posixLauncher(t);
  assert.match(sh, /^#!\/bin\/sh\n/);
  assert.ok(sh.includes(`ELECTRON_RUN_AS_NODE=1 exec '/Applications/Visual Studio Code.app/Contents/MacOS/Electron'\\''s' /ext/dist/cli.js "$@"`));
  const cmd = windowsLauncher({ execPath: 'C:\\Program Files\\Microsoft VS Code\\Code.exe', cliPath: 'C:\\Users\\me\\100%\\cli.js' });
  assert.ok(cmd.includes('set ELECTRON_RUN_AS_NODE=1\r\n'));
  assert.ok(cmd.includes('"C:\\Program Files\\Microsoft VS Code\\Code.exe" "C:\\Users\\me\\100%%\\cli.js" %*'));
});
