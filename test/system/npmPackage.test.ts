// The npm package, as a user installs it: `npm pack` (what .npmignore and the prepack step leave in it), then
// `npm install -g` of the tarball into a temporary prefix, offline (the bundles carry their libraries, so the package
// has no dependencies), then the installed `checkpoint` runs (test/support/npmPackage.ts packs it).
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import * as path from 'node:path';
import { isolatedEnv, makeRepo, removeDir, tempDir } from '../support/fixtures';
import { NPM, npmEnv, packPackage } from '../support/npmPackage';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const temps: string[] = [];
after(() => temps.forEach(removeDir));
const temp = (prefix: string): string => {
  const dir = tempDir(prefix);
  temps.push(dir);
  return dir;
};

test('npm pack: the built CLI, the plugin, README, LICENSE and CHANGELOG (and the .vsix none of the plugin); installed globally, `checkpoint --version` and a save work', () => {
  const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { version: string; dependencies?: object };
  assert.equal(pkg.dependencies, undefined, 'the bundles carry their libraries: nothing to install at run time');

  const { stage, tarball, files } = packPackage(temp('checkpoint-pack-'), temp('checkpoint-tgz-'));
  // The CLI's bundle and every library it loads from beside it (the lock, YAML, the schemas, the MCP SDK…).
  const cli = ['dist/cli.js', 'dist/cli-main.js', ...requiredBeside(path.join(stage, 'dist', 'cli-main.js'))];
  for (const f of ['.claude-plugin/plugin.json', '.mcp.json', 'bin/checkpoint', ...cli, 'hooks/hooks.json', 'skills/checkpoint/SKILL.md', 'schema/checkpoint-cli.schema.json', 'README.md', 'LICENSE', 'CHANGELOG.md']) {
    assert.ok(files.includes(f), `${f} is in the package: ${files.join(', ')}`);
  }
  const unwanted = files.filter((f) => /^(src|test|scripts|docs|out|node_modules)\/|\.map$|^dist\/ext|^dist\/extension\.js$|^dist\/\.v8-cache\/|marketplace\.json$/.test(f));
  assert.deepEqual(unwanted, [], 'no sources, tests, scripts, screenshots, source maps, code caches or the editor\'s bundles');
  if (process.platform !== 'win32') assert.ok(existsSync(path.join(stage, 'dist', '.v8-cache')), 'the staged dist/ had a code cache to leave out');

  // The .vsix (vsce follows .vscodeignore) takes none of the plugin's files, even while npm pack has them in place.
  const vsce = path.join(ROOT, 'node_modules', '@vscode', 'vsce', 'vsce');
  const vsix = execFileSync(process.execPath, [vsce, 'ls', '--no-dependencies'], { cwd: stage, encoding: 'utf8', timeout: 120_000 }).split('\n').filter(Boolean);
  assert.deepEqual(
    vsix.filter((f) => !/^(dist\/[\w-]+\.js|media\/(checkpoint\.svg|icon\.png|walkthrough\/\w+\.md)|package\.json|README\.md|CHANGELOG\.md|LICENSE)$/.test(f)),
    [],
    'the .vsix has only the bundles, its media, README, CHANGELOG, LICENSE and package.json',
  );
  // The extension, its libraries, and the CLI it installs and runs as the MCP server.
  for (const f of ['dist/extension.js', ...requiredBeside(path.join(stage, 'dist', 'extension.js')), ...cli]) assert.ok(vsix.includes(f), `${f} is in the .vsix`);

  const prefix = temp('checkpoint-prefix-');
  execFileSync(NPM, ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', tarball], {
    env: npmEnv(),
    encoding: 'utf8',
    timeout: 120_000,
  });
  const bin = process.platform === 'win32' ? path.join(prefix, 'checkpoint.cmd') : path.join(prefix, 'bin', 'checkpoint');
  const home = temp('checkpoint-pack-home-');
  const env = isolatedEnv(home);
  const version = spawnSync(bin, ['--version'], { env, encoding: 'utf8', timeout: 30_000, shell: process.platform === 'win32' });
  assert.equal(version.stdout.trim(), pkg.version, version.stderr);

  const repo = makeRepo({ dir: path.join(temp('checkpoint-pack-repo-'), 'project') });
  const saved = spawnSync(bin, ['save', 'from-npm', '--left-off', 'Installed from the tarball', '--json'], { cwd: repo, env, encoding: 'utf8', timeout: 30_000, shell: process.platform === 'win32' });
  assert.equal(saved.status, 0, saved.stderr);
  const file = (JSON.parse(saved.stdout) as { path: string }).path;
  assert.ok(existsSync(file), file);
  assert.match(readFileSync(file, 'utf8'), /Installed from the tarball/);

  // Claude Code's session start, as its hook runs the installed command.
  const input = JSON.stringify({ session_id: 's1', cwd: repo, hook_event_name: 'SessionStart', source: 'startup' });
  const hook = spawnSync(bin, ['hook', 'session-start'], { cwd: repo, env, input, encoding: 'utf8', timeout: 30_000, shell: process.platform === 'win32' });
  assert.equal(hook.status, 0, hook.stderr);
  assert.match((JSON.parse(hook.stdout) as { hookSpecificOutput: { additionalContext: string } }).hookSpecificOutput.additionalContext, /"from-npm"/);
});

/** The dist/ files a bundle requires from beside it (`require("./<name>.js")`), as package paths. */
function requiredBeside(bundle: string): string[] {
  return [...readFileSync(bundle, 'utf8').matchAll(/require\("\.\/([\w-]+\.js)"\)/g)].map((m) => `dist/${m[1]}`);
}
