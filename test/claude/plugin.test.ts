// The Claude Code plugin, judged by the real client: `claude plugin validate --strict --profile directory` on the
// folder `npm run package:plugin` makes (the plugin, and a marketplace of itself); a session started with
// `--plugin-dir <zip>` from a PATH with Node but no `checkpoint` gets the pending checkpoint from the plugin's
// SessionStart hook; the plugin installed as README.md says (from a clone: its plugin folder added as a local
// marketplace; from the release zip, unpacked, the same; once published: this repository's
// `.claude-plugin/marketplace.json`, whose entry names the npm package, served from 127.0.0.1) does the same, and
// Claude Code's settings then list it as enabled (what Connect Claude Code looks for); with Connect's hooks too, the
// session is told once.
import { after, before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { copyFileSync, existsSync, mkdirSync, readFileSync, realpathSync, statSync, symlinkSync } from 'node:fs';
import * as path from 'node:path';
import { claudeTargets, connectClaude, hookProgram, pluginEnabledIn } from '../../src/core/claudeSettings';
import { writeLaunchers } from '../../src/core/launcher';
import { shellQuote } from '../../src/core/escaping';
import { claudeCommand, packagePlugin, runClaude } from '../support/claudeCode';
import { CLI, makeRepo, removeDir, runCli, tempDir } from '../support/fixtures';
import { packPackage, REGISTRY_ANSWERS, runRelease, serveRegistry, stageProject } from '../support/npmPackage';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const temps: string[] = [];
after(() => temps.forEach(removeDir));
const temp = (prefix: string): string => {
  const dir = realpathSync(tempDir(prefix));
  temps.push(dir);
  return dir;
};

/** The plugin as a user gets it: the folder and its zip, made from the built CLI (`node scripts/build.mjs`). */
let pluginDir = '';
let pluginZip = '';
before(() => {
  ({ dir: pluginDir, zip: pluginZip } = packagePlugin(temp('checkpoint-plugin-')));
});

/** A PATH with Node and the system's tools, and no `checkpoint` (nothing of VS Code, no installed CLI). */
function pathWithoutCheckpoint(): string {
  const bin = path.join(temp('checkpoint-node-bin-'), 'bin');
  mkdirSync(bin);
  symlinkSync(process.execPath, path.join(bin, 'node'));
  const dirs = [bin, '/usr/bin', '/bin'];
  assert.ok(!dirs.some((d) => existsSync(path.join(d, 'checkpoint'))), `a checkpoint command is on ${dirs.join(':')}`);
  return dirs.join(path.delimiter);
}

function makeHome(): string {
  const home = temp('checkpoint-plugin-home-');
  mkdirSync(path.join(home, '.claude'));
  return home;
}

/** A repository with a pending checkpoint, saved with the CLI as an agent or the editor would. */
async function repoWithPending(home: string, name: string, leftOff: string): Promise<string> {
  const project = makeRepo({ dir: path.join(temp('checkpoint-plugin-repo-'), 'project') });
  const r = await runCli(['save', name, '--left-off', leftOff], { cwd: project, env: { PATH: process.env.PATH, HOME: home, LANG: 'C.UTF-8' } });
  assert.equal(r.code, 0, r.err);
  return project;
}

/** `claude plugin marketplace add <folder>`, then `claude plugin install checkpoint@checkpoint`, as README.md says; Claude Code then lists it as enabled. */
async function installFromFolder(folder: string, project: string, home: string): Promise<void> {
  const opts = { cwd: project, home };
  const validated = await claudeCommand(['plugin', 'validate', folder, '--strict'], opts);
  assert.equal(validated.code, 0, validated.output);
  const added = await claudeCommand(['plugin', 'marketplace', 'add', folder], opts);
  assert.equal(added.code, 0, added.output);
  const installed = await claudeCommand(['plugin', 'install', 'checkpoint@checkpoint'], opts);
  assert.equal(installed.code, 0, installed.output);
  assert.equal(await pluginEnabledIn(project, { HOME: home }), path.join(home, '.claude', 'settings.json'));
}

describe('The Claude Code plugin', () => {
  test('passes `claude plugin validate --strict --profile directory`, and its zip is at most 1.5 MB', async () => {
    const r = await claudeCommand(['plugin', 'validate', pluginDir, '--strict', '--profile', 'directory'], { cwd: pluginDir, home: makeHome() });
    assert.equal(r.code, 0, r.output);
    assert.match(r.output, /Validation passed/);
    assert.ok(statSync(pluginZip).size <= 1.5 * 1024 * 1024, `${statSync(pluginZip).size} bytes`);
  });

  test('a session started with --plugin-dir <zip>, from a PATH with Node and no checkpoint command, is told about the pending checkpoint', async () => {
    const home = makeHome();
    const project = await repoWithPending(home, 'plugin-zip', 'Loaded from the zip');
    const s = await runClaude({ cwd: project, home, args: ['--plugin-dir', pluginZip], env: { PATH: pathWithoutCheckpoint() } });
    const context = s.hookContext;
    assert.match(context, /"plugin-zip"/, `no pending checkpoint in the session's context:\n${context || '(no hook context)'}\n${s.output}`);
    assert.match(context, /Loaded from the zip/);
  });

  test('once the npm package is published: installed from this repository\'s marketplace (its entry: the npm package), it tells the session; Claude Code lists it as enabled', async () => {
    const home = makeHome();
    // The marketplace as the repository has it; the npm package it names comes from a registry on 127.0.0.1 that
    // serves what `npm pack` makes (npm's registry setting, as a user's npm configuration would give it).
    const market = path.join(temp('checkpoint-market-'), 'market');
    mkdirSync(path.join(market, '.claude-plugin'), { recursive: true });
    copyFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), path.join(market, '.claude-plugin', 'marketplace.json'));
    const manifest = JSON.parse(readFileSync(path.join(market, '.claude-plugin', 'marketplace.json'), 'utf8')) as { name: string; plugins: { name: string; source: unknown }[] };
    const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string };
    assert.deepEqual(manifest.plugins.find((p) => p.name === 'checkpoint')?.source, { source: 'npm', package: pkg.name });
    const packed = packPackage(temp('checkpoint-pack-'), temp('checkpoint-tgz-'));
    const registry = await serveRegistry(packed.tarball, pkg.name, pkg.version);

    const project = await repoWithPending(home, 'from-market', 'Installed from the marketplace');
    try {
      const opts = { cwd: project, home, env: { npm_config_registry: registry.url }, loopback: true };
      const added = await claudeCommand(['plugin', 'marketplace', 'add', market], opts);
      assert.equal(added.code, 0, added.output);
      const installed = await claudeCommand(['plugin', 'install', `checkpoint@${manifest.name}`], opts);
      assert.equal(installed.code, 0, installed.output);
    } finally {
      await registry.close();
    }
    // What Connect Claude Code reads to offer nothing twice.
    assert.equal(await pluginEnabledIn(project, { HOME: home }), path.join(home, '.claude', 'settings.json'));
    // What checkpoint doctor reads: the installed copy's hooks (installed_plugins.json, as the client writes it).
    const doctor = await runCli(['doctor', '--json'], { cwd: project, env: { PATH: process.env.PATH, HOME: home } });
    const found = (JSON.parse(doctor.out) as { hooks: { sources: { where: string; kind: string; sessionStart: string[] }[] } }).hooks.sources;
    assert.deepEqual(found.map((h) => [h.where, h.kind, h.sessionStart.includes('startup')]), [[`plugin checkpoint@${manifest.name}`, 'plugin', true]], doctor.out);

    const s = await runClaude({ cwd: project, home, env: { PATH: pathWithoutCheckpoint() } });
    const context = s.hookContext;
    assert.match(context, /"from-market"/, `no pending checkpoint in the session's context:\n${context || '(no hook context)'}\n${s.output}`);
  });

  test('from a clone: the plugin folder (`npm run package:plugin`) added as a local marketplace and installed, it tells the session', async () => {
    const home = makeHome();
    const project = await repoWithPending(home, 'from-clone', 'Installed from a clone');
    await installFromFolder(pluginDir, project, home);
    const s = await runClaude({ cwd: project, home, env: { PATH: pathWithoutCheckpoint() } });
    assert.match(s.hookContext, /"from-clone"/, `no pending checkpoint in the session's context:\n${s.hookContext || '(no hook context)'}\n${s.output}`);
  });

  test('with the plugin and Connect\'s hooks both in place, the session is told about the checkpoint once', async () => {
    const home = makeHome();
    const project = await repoWithPending(home, 'told-once', 'Two hooks, one message');
    const launchers = await writeLaunchers(path.join(temp('checkpoint-claude-bin-'), 'bin'), { execPath: process.execPath, cliPath: CLI });
    await connectClaude(claudeTargets('workspace', project, { HOME: home }), hookProgram('workspace', shellQuote(launchers.posix)));
    const s = await runClaude({ cwd: project, home, args: ['--plugin-dir', pluginZip], env: { PATH: `${launchers.dir}${path.delimiter}${process.env.PATH ?? ''}` } });
    const told = s.hookContext.split('\n').filter((l) => l.includes('"told-once"'));
    assert.equal(told.length, 1, `the session's hook context:\n${s.hookContext || '(none)'}`);
  });

  test('without Node on PATH its hook does nothing and exits 0; its other commands say what is missing', () => {
    const bin = path.join(temp('checkpoint-no-node-'), 'bin');
    mkdirSync(bin);
    symlinkSync('/bin/sh', path.join(bin, 'sh'));
    const wrapper = path.join(pluginDir, 'bin', 'checkpoint');
    const hook = spawnSync('/bin/sh', [wrapper, 'hook', 'session-start'], { env: { PATH: bin }, input: '{}', encoding: 'utf8', timeout: 30_000 });
    assert.equal(hook.status, 0, hook.stderr);
    assert.equal(hook.stdout, '');
    assert.match(hook.stderr, /Node\.js 20 or later is needed on PATH/);
    const save = spawnSync('/bin/sh', [wrapper, 'save', 'x', '--left-off', 'y'], { env: { PATH: bin }, encoding: 'utf8', timeout: 30_000 });
    assert.notEqual(save.status, 0);
    assert.match(save.stderr, /Node\.js 20 or later is needed on PATH/);
  });
});

describe('The release\'s plugin zip (`npm run release`), installed as README.md says', () => {
  let zip = '';
  before(() => {
    const out = path.join(temp('checkpoint-release-'), 'release');
    const made = runRelease(stageProject(temp('checkpoint-release-stage-')), out, path.join(REGISTRY_ANSWERS, 'free.json'));
    assert.equal(made.code, 0, made.stderr);
    const name = made.files.find((f) => f.endsWith('.zip'));
    assert.ok(name, made.files.join(', '));
    zip = path.join(out, name);
  });

  test('passes `claude plugin validate`, as a plugin and as a marketplace of itself, unpacked', async () => {
    const folder = path.join(temp('checkpoint-unzipped-'), 'plugin');
    execFileSync('unzip', ['-q', zip, '-d', folder], { timeout: 60_000 });
    for (const target of [path.join(folder, '.claude-plugin', 'plugin.json'), path.join(folder, '.claude-plugin', 'marketplace.json')]) {
      const r = await claudeCommand(['plugin', 'validate', target, '--strict'], { cwd: folder, home: makeHome() });
      assert.equal(r.code, 0, r.output);
      assert.match(r.output, /Validation passed/);
    }
  });

  test('`claude --plugin-dir <zip>`: the session is told about the pending checkpoint', async () => {
    const home = makeHome();
    const project = await repoWithPending(home, 'release-zip', 'From the release zip');
    const s = await runClaude({ cwd: project, home, args: ['--plugin-dir', zip], env: { PATH: pathWithoutCheckpoint() } });
    assert.match(s.hookContext, /"release-zip"/, `no pending checkpoint in the session's context:\n${s.hookContext || '(no hook context)'}\n${s.output}`);
  });

  test('unpacked and added as a local marketplace, installed: the session is told', async () => {
    const folder = path.join(temp('checkpoint-unzipped-'), 'plugin');
    execFileSync('unzip', ['-q', zip, '-d', folder], { timeout: 60_000 });
    const home = makeHome();
    const project = await repoWithPending(home, 'release-market', 'From the unpacked zip');
    await installFromFolder(folder, project, home);
    const s = await runClaude({ cwd: project, home, env: { PATH: pathWithoutCheckpoint() } });
    assert.match(s.hookContext, /"release-market"/, `no pending checkpoint in the session's context:\n${s.hookContext || '(no hook context)'}\n${s.output}`);
  });
});
