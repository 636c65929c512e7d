// `npm run release` (scripts/release.mjs) on a copy of the project's package files and its built dist/, with the
// registry's answer recorded (test/fixtures/npm-registry/, given with --registry-answer: no network): the .vsix, the
// npm tarball, the plugin zip and SHA256SUMS when the versions agree and the name is free or ours; a refusal that
// says why, and no file, when a version differs or the name is another package's. Then two of the files installed as
// README.md says, on a fresh machine (a temp prefix and HOME): the tarball with `npm install -g ./<file>.tgz`, then
// `checkpoint --version`; the .vsix with `--install-extension` in a real VS Code (code-server), whose window runs the
// save suite against it. (The plugin zip: test/claude/plugin.test.ts.)
import { before, describe, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { readFileSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { isolatedEnv, tempDirs } from '../support/fixtures';
import { NPM, npmEnv, REGISTRY_ANSWERS, runRelease, stageProject, type ReleaseRun } from '../support/npmPackage';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const pkg = JSON.parse(readFileSync(path.join(ROOT, 'package.json'), 'utf8')) as { name: string; version: string; publisher: string; bin: Record<string, string> };
const FREE = path.join(REGISTRY_ANSWERS, 'free.json');
const temp = tempDirs();
const edit = (file: string, change: (text: string) => string): void => writeFileSync(file, change(readFileSync(file, 'utf8')));

describe('npm run release', () => {
  const vsix = `${pkg.name}-${pkg.version}.vsix`;
  const tgz = `${pkg.name}-${pkg.version}.tgz`;
  const zip = `${pkg.name}-plugin-${pkg.version}.zip`;
  let out = '';
  let made: ReleaseRun;
  before(() => {
    out = path.join(temp('checkpoint-release-'), 'release');
    made = runRelease(stageProject(temp('checkpoint-release-stage-')), out, FREE);
  });

  test('makes the .vsix, the npm tarball and the plugin zip, and SHA256SUMS that `sha256sum -c` accepts; the name free on the registry', () => {
    assert.equal(made.code, 0, made.stderr);
    assert.match(made.stdout, new RegExp(`npm: "${pkg.name}" is free`));
    assert.match(made.stdout, /Nothing was published/);
    assert.deepEqual(made.files, ['SHA256SUMS', tgz, vsix, zip].sort());
    const sums = readFileSync(path.join(out, 'SHA256SUMS'), 'utf8');
    assert.deepEqual(sums.trim().split('\n').map((l) => l.split('  ')[1]).sort(), [tgz, vsix, zip].sort());
    const check = spawnSync('sha256sum', ['-c', 'SHA256SUMS'], { cwd: out, encoding: 'utf8', timeout: 30_000 });
    assert.equal(check.status, 0, check.stdout + check.stderr);
    assert.equal(check.stdout.match(/: OK$/gm)?.length, 3, check.stdout);
    // README.md's Install section names the files as they are made (the tests below install them as it says).
    const readme = readFileSync(path.join(ROOT, 'README.md'), 'utf8');
    const install = readme.slice(readme.indexOf('\n## Install\n'), readme.indexOf('\n### Once the packages are published'));
    for (const line of [`code --install-extension ${vsix}`, `npm install -g ./${tgz}`, `claude --plugin-dir ${zip}`, `unzip ${zip}`]) assert.ok(install.includes(line), `README.md's Install section says ${line}`);
    // No marketplace is offered by a GitHub address (owner/repository): the repository has none yet.
    const pluginReadme = execFileSync('unzip', ['-p', path.join(out, zip), 'README.md'], { encoding: 'utf8', timeout: 30_000 });
    for (const [name, text] of [['README.md', readme], ['README.package.md', readFileSync(path.join(ROOT, 'README.package.md'), 'utf8')], ["the plugin's README.md", pluginReadme]]) {
      assert.doesNotMatch(text, /marketplace add [\w-]+\/[\w.-]+/, name);
    }
    assert.match(pluginReadme, /claude plugin marketplace add /);
  });

  test('a published version of this package on the registry is fine (--check: the checks alone, nothing made)', () => {
    const ours = path.join(temp('checkpoint-release-answer-'), 'ours.json');
    writeFileSync(ours, JSON.stringify({ name: pkg.name, version: '0.2.9', publisher: pkg.publisher, bin: pkg.bin, description: 'an older description' }));
    const dir = path.join(temp('checkpoint-release-'), 'release');
    const r = runRelease(stageProject(temp('checkpoint-release-stage-')), dir, ours, ['--check']);
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stdout, new RegExp(`npm: "${pkg.name}" is this package \\(0\\.2\\.9 published\\)`));
    assert.deepEqual(r.files, []);
  });

  test('a registry that cannot be asked: the name goes unchecked, said so, and the checks pass', () => {
    const dir = path.join(temp('checkpoint-release-'), 'release');
    // A registry on a closed port, without npm's retries (the time limit is 30 s: a hung registry is the same case).
    const r = runRelease(stageProject(temp('checkpoint-release-stage-')), dir, undefined, ['--check'], { npm_config_registry: 'http://127.0.0.1:9/', npm_config_fetch_retries: '0' });
    assert.equal(r.code, 0, r.stderr);
    assert.match(r.stderr, new RegExp(`the npm registry could not be asked about "${pkg.name}" \\(ECONNREFUSED\\): the name is not checked`));
    assert.deepEqual(r.files, []);
  });

  test('refuses, making nothing, when the marketplace or CHANGELOG\'s top entry states another version', () => {
    const changelog = stageProject(temp('checkpoint-release-stage-'));
    edit(path.join(changelog, 'CHANGELOG.md'), (t) => t.replace(/^## +\S+/m, '## 9.9.9'));
    const r = runRelease(changelog, path.join(temp('checkpoint-release-'), 'release'), FREE);
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, new RegExp(`refused: the versions differ: package\\.json says ${pkg.version.replace(/\./g, '\\.')};.*CHANGELOG\\.md's top entry says 9\\.9\\.9`));
    assert.deepEqual(r.files, []);

    const market = stageProject(temp('checkpoint-release-stage-'));
    edit(path.join(market, '.claude-plugin', 'marketplace.json'), (t) => {
      const manifest = JSON.parse(t) as { plugins: { version: string }[] };
      manifest.plugins[0].version = '0.0.1';
      return JSON.stringify(manifest);
    });
    const m = runRelease(market, path.join(temp('checkpoint-release-'), 'release'), FREE);
    assert.equal(m.code, 1, m.stdout);
    assert.match(m.stderr, /marketplace\.json \(plugin checkpoint\) says 0\.0\.1/);
    assert.deepEqual(m.files, []);
  });

  test('refuses, making nothing, a name the registry has for another package, and names that package', () => {
    // As the project was named before: `checkpoint`, which another author has on the registry (the answer recorded).
    const stage = stageProject(temp('checkpoint-release-stage-'));
    edit(path.join(stage, 'package.json'), (t) => t.replace(`"name": "${pkg.name}"`, '"name": "checkpoint"'));
    const r = runRelease(stage, path.join(temp('checkpoint-release-'), 'release'), path.join(REGISTRY_ANSWERS, 'checkpoint.json'));
    assert.equal(r.code, 1, r.stdout);
    assert.match(r.stderr, /refused: the npm name "checkpoint" belongs to another package: checkpoint 2\.0\.0 \("Validate and sanitize fields\.", by Zach Ripka, https:\/\/github\.com\/zachrip\/checkpoint\)/);
    assert.deepEqual(r.files, []);
  });

  test('the tarball, installed as README says (`npm install -g ./<file>.tgz`) into a fresh prefix: `checkpoint --version`', () => {
    assert.equal(made.code, 0, made.stderr);
    const prefix = temp('checkpoint-release-prefix-');
    const home = temp('checkpoint-release-home-');
    execFileSync(NPM, ['install', '-g', '--prefix', prefix, '--offline', '--no-audit', '--no-fund', `./${tgz}`], { cwd: out, env: { ...npmEnv(), HOME: home }, encoding: 'utf8', timeout: 120_000 });
    const r = spawnSync(path.join(prefix, 'bin', 'checkpoint'), ['--version'], { env: isolatedEnv(home), encoding: 'utf8', timeout: 30_000 });
    assert.equal(r.status, 0, r.stderr);
    assert.equal(r.stdout.trim(), pkg.version);
  });

  test('the .vsix, installed as README says (`--install-extension`) in a real VS Code: a window runs the save suite against it', () => {
    assert.equal(made.code, 0, made.stderr);
    const r = spawnSync(
      process.execPath,
      [path.join(ROOT, 'scripts', 'harness', 'run-integration.mjs'), '--vsix', path.join(out, vsix), '--files', path.join(ROOT, 'out', 'test', 'integration', 'save.test.js'), '--timeout', '300000'],
      { encoding: 'utf8', timeout: 420_000 },
    );
    assert.equal(r.status, 0, r.stdout.slice(-4000) + r.stderr.slice(-4000));
    assert.match(r.stdout, /^[1-9]\d* passed, 0 failed/m, r.stdout);
  });
});
