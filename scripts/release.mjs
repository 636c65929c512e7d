// `npm run release`: the release files, made and checked, published nowhere. Into release/ (or --out DIR):
//   <name>-<version>.vsix           the VS Code extension (scripts/package.mjs)
//   <name>-<version>.tgz            the npm package: the CLI and the Claude Code plugin (what `npm pack` makes)
//   <name>-plugin-<version>.zip     the Claude Code plugin (scripts/package-plugin.mjs), also a marketplace of itself
//   SHA256SUMS                      their SHA-256 sums, for `sha256sum -c SHA256SUMS`
//
// It refuses, before building anything, when the versions of package.json, .claude-plugin/marketplace.json and
// CHANGELOG.md's top entry differ (and after, when the plugin manifest it wrote says another), or when the npm
// registry has the package's name for another package. A version of this package there is fine: the registry's
// latest manifest is ours when it has our repository (when package.json names one) or our VS Code publisher and the
// `checkpoint` command. When the registry cannot be asked (offline, a time-out), it says so and goes on: npm
// checks the name again when the package is published.
//
// Options: --check (only the checks: the versions and the name; makes nothing); --out DIR; --no-build (package dist/ as it is); --root DIR (release that copy of the project's package
// files instead of the project); --registry-answer FILE (what `npm view <name> --json` printed, instead of asking
// the registry); --baseImagesUrl URL (passed to scripts/package.mjs, for the README's screenshots).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';

const project = join(dirname(fileURLToPath(import.meta.url)), '..');
const scripts = join(project, 'scripts');
const { values: opts } = parseArgs({
  options: {
    check: { type: 'boolean', default: false },
    out: { type: 'string' },
    root: { type: 'string' },
    'no-build': { type: 'boolean', default: false },
    'registry-answer': { type: 'string' },
    baseImagesUrl: { type: 'string' },
  },
});
const root = resolve(opts.root ?? project);
const outDir = resolve(opts.out ?? join(root, 'release'));
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** How long the registry may take to answer `npm view`. */
const REGISTRY_TIMEOUT = 30_000;
const BUILD_TIMEOUT = 10 * 60_000;
const PACK_TIMEOUT = 5 * 60_000;

class Refusal extends Error {}

const readJson = (file) => JSON.parse(readFileSync(file, 'utf8'));
const pkg = readJson(join(root, 'package.json'));

/** Each place that states the release's version, with the version it states. */
function statedVersions() {
  const market = readJson(join(root, '.claude-plugin', 'marketplace.json'));
  const top = /^## +(\S+)/m.exec(readFileSync(join(root, 'CHANGELOG.md'), 'utf8'));
  return [
    ['package.json', pkg.version],
    ['.claude-plugin/marketplace.json (metadata.version)', market.metadata?.version],
    ...(market.plugins ?? []).map((p) => [`.claude-plugin/marketplace.json (plugin ${p.name})`, p.version]),
    ["CHANGELOG.md's top entry", top?.[1]],
  ];
}

function checkVersions(stated) {
  const differ = stated.filter(([, v]) => v !== pkg.version);
  if (differ.length) {
    throw new Refusal(`the versions differ: ${stated.map(([where, v]) => `${where} says ${v === undefined ? 'none' : v}`).join('; ')}.`);
  }
}

/** What `npm view <name> --json` answers: the latest manifest, `{ error: { code } }`, or undefined when it could not ask. */
function registryAnswer() {
  if (opts['registry-answer']) return { answer: readJson(resolve(opts['registry-answer'])) };
  // The user's npm settings (registry, proxy) as they are: the answer is about the registry `npm publish` would use.
  const r = spawnSync(NPM, ['view', pkg.name, '--json'], { encoding: 'utf8', timeout: REGISTRY_TIMEOUT });
  if (r.error) return { unknown: r.error.code === 'ETIMEDOUT' ? `no answer within ${REGISTRY_TIMEOUT / 1000} s` : r.error.message };
  try {
    return { answer: JSON.parse(r.stdout) };
  } catch {
    return { unknown: (r.stderr || r.stdout).trim().split('\n')[0] || `npm view exited with ${r.status}` };
  }
}

const repositoryUrl = (r) =>
  (typeof r === 'string' ? r : r?.url ?? '')
    .replace(/^git\+/, '')
    .replace(/\.git$/, '')
    .replace(/^(git|ssh):\/\/(git@)?/, 'https://')
    .toLowerCase();

/** Whether the registry's manifest for our name is a version of this package. */
function isOurs(published) {
  if (pkg.repository && published.repository) return repositoryUrl(pkg.repository) === repositoryUrl(published.repository);
  return published.publisher === pkg.publisher && Boolean(published.bin?.checkpoint);
}

/** A registry value as one printable line: control characters as "?", at most 200 characters. */
function line(value) {
  // eslint-disable-next-line no-control-regex
  const text = String(value).replace(/[\u0000-\u001f\u007f-\u009f]/g, '?');
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/** The other package, as the refusal names it: name, version, description, author, repository or homepage. */
function whose(published) {
  const author = typeof published.author === 'string' ? published.author : published.author?.name;
  const about = [published.description && `"${line(published.description)}"`, author && `by ${line(author)}`, line(repositoryUrl(published.repository) || published.homepage || '')].filter(Boolean);
  return `${line(published.name ?? pkg.name)} ${line(published.version ?? '(no version)')}${about.length ? ` (${about.join(', ')})` : ''}`;
}

function checkName() {
  const { answer, unknown } = registryAnswer();
  const manifest = Array.isArray(answer) ? answer.at(-1) : answer;
  const why = unknown ?? (manifest === null || typeof manifest !== 'object' ? 'an answer that is no manifest' : manifest.error && manifest.error.code !== 'E404' ? manifest.error.code : undefined);
  if (why !== undefined) {
    console.warn(`release: the npm registry could not be asked about "${pkg.name}" (${why}): the name is not checked.`);
  } else if (manifest?.error) {
    console.log(`npm: "${pkg.name}" is free.`);
  } else if (isOurs(manifest)) {
    console.log(`npm: "${pkg.name}" is this package (${manifest.version} published).`);
  } else {
    throw new Refusal(`the npm name "${pkg.name}" belongs to another package: ${whose(manifest)}. Give package.json another name.`);
  }
}

function run(file, args, timeout, cwd = project) {
  execFileSync(process.execPath, [file, ...args], { cwd, stdio: ['ignore', 'inherit', 'inherit'], timeout });
}

function sha256(file) {
  return createHash('sha256').update(readFileSync(file)).digest('hex');
}

function release() {
  const stated = statedVersions();
  checkVersions(stated);
  checkName();
  if (opts.check) return;
  if (!opts['no-build']) run(join(scripts, 'build.mjs'), ['--production'], BUILD_TIMEOUT);
  mkdirSync(outDir, { recursive: true });
  const base = `${pkg.name}-${pkg.version}`;
  const vsix = join(outDir, `${base}.vsix`);
  const zip = join(outDir, `${pkg.name}-plugin-${pkg.version}.zip`);
  const temp = mkdtempSync(join(tmpdir(), 'checkpoint-release-'));
  try {
    // The plugin folder first: its manifest is the fourth place that states the version.
    const pluginDir = join(temp, 'plugin');
    run(join(scripts, 'package-plugin.mjs'), ['--no-build', '--root', root, '--dir', pluginDir, '-o', zip], PACK_TIMEOUT);
    const manifest = readJson(join(pluginDir, '.claude-plugin', 'plugin.json'));
    if (manifest.version !== pkg.version) {
      rmSync(zip, { force: true });
      checkVersions([...stated, ['the plugin manifest (.claude-plugin/plugin.json)', manifest.version]]);
    }

    run(join(scripts, 'package.mjs'), ['--no-build', '--root', root, '--out', vsix, ...(opts.baseImagesUrl ? ['--baseImagesUrl', opts.baseImagesUrl] : [])], PACK_TIMEOUT);

    // npm pack as its prepack and postpack steps do it, without their second build.
    let tarball;
    try {
      run(join(scripts, 'package-plugin.mjs'), ['--npm', '--no-build', '--root', root], PACK_TIMEOUT);
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      const packed = JSON.parse(execFileSync(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', outDir], { cwd: root, env, encoding: 'utf8', timeout: PACK_TIMEOUT }));
      tarball = join(outDir, packed[0].filename);
    } finally {
      run(join(scripts, 'package-plugin.mjs'), ['--npm-clean', '--root', root], PACK_TIMEOUT);
    }

    const files = [vsix, tarball, zip];
    for (const f of files) if (!existsSync(f)) throw new Error(`${f} was not made`);
    writeFileSync(join(outDir, 'SHA256SUMS'), files.map((f) => `${sha256(f)}  ${basename(f)}\n`).join(''));
    console.log(`Release ${pkg.version} in ${outDir}:\n${files.map((f) => `  ${basename(f)}`).join('\n')}\n  SHA256SUMS\nNothing was published.`);
  } finally {
    rmSync(temp, { recursive: true, force: true });
  }
}

try {
  release();
} catch (err) {
  if (!(err instanceof Refusal)) throw err;
  console.error(`release: refused: ${err.message}`);
  process.exitCode = 1;
}
