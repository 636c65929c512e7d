// The npm package as `npm pack` makes it, packed from a copy of the project's built files (the build the other
// tests read is left alone): the project's files, dist/, and what the prepack step writes (without its production
// build, scripts/package-plugin.mjs --npm).
import { execFileSync, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
export const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm';
/** The environment without an outer npm's settings (npm_config_*), which would leak into this npm. */
export const npmEnv = (): NodeJS.ProcessEnv => Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));

export interface Packed {
  /** The folder packed (with .vscodeignore and media/, so vsce can list the .vsix from it too). */
  stage: string;
  tarball: string;
  /** The package's files, sorted. */
  files: string[];
}

/**
 * Copies what the packages are made of (package.json, the READMEs, LICENSE, CHANGELOG.md, the ignore files, media/,
 * the built dist/ and .claude-plugin/marketplace.json) into `stage`, an empty temp folder, and gives its dist/ a
 * code cache that the packages must leave out.
 */
export function stageProject(stage: string): string {
  for (const f of ['package.json', 'README.md', 'README.package.md', 'LICENSE', 'CHANGELOG.md', '.npmignore', '.vscodeignore']) copyFileSync(path.join(ROOT, f), path.join(stage, f));
  cpSync(path.join(ROOT, 'media'), path.join(stage, 'media'), { recursive: true });
  cpSync(path.join(ROOT, 'schema'), path.join(stage, 'schema'), { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(stage, 'dist'), { recursive: true });
  mkdirSync(path.join(stage, '.claude-plugin'));
  copyFileSync(path.join(ROOT, '.claude-plugin', 'marketplace.json'), path.join(stage, '.claude-plugin', 'marketplace.json'));
  // A run leaves its code cache in dist/.v8-cache/ (src/cli/codeCache.ts), which the packages must leave out: the
  // staged copy gets one of its own.
  rmSync(path.join(stage, 'dist', '.v8-cache'), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(stage, 'dist', 'cli.js'), '--version'], { timeout: 30_000 });
  return stage;
}

/** Packs the package into `out`, staged in `stage` (both empty temp folders). */
export function packPackage(stage: string, out: string): Packed {
  stageProject(stage);
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'package-plugin.mjs'), '--npm', '--no-build', '--root', stage], { timeout: 60_000 });
  const packed = JSON.parse(
    execFileSync(NPM, ['pack', '--json', '--ignore-scripts', '--pack-destination', out], { cwd: stage, env: npmEnv(), encoding: 'utf8', timeout: 120_000 }),
  ) as { filename: string; files: { path: string }[] }[];
  return { stage, tarball: path.join(out, packed[0].filename), files: packed[0].files.map((f) => f.path).sort() };
}

/**
 * A minimal npm registry on 127.0.0.1 that serves one package, the tarball `npm pack` made (its metadata document
 * and the tarball); anything else is 404. For `npm_config_registry`, so a client installs "the npm package" offline.
 */
export async function serveRegistry(tarball: string, name: string, version: string): Promise<{ url: string; close(): Promise<void> }> {
  const tgz = readFileSync(tarball);
  const file = `/${name}/-/${name}-${version}.tgz`;
  const server = createServer((req, res) => {
    const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    if (req.url === `/${name}`) {
      res.setHeader('content-type', 'application/json');
      const dist = { tarball: base + file, shasum: createHash('sha1').update(tgz).digest('hex'), integrity: `sha512-${createHash('sha512').update(tgz).digest('base64')}` };
      res.end(JSON.stringify({ name, 'dist-tags': { latest: version }, versions: { [version]: { name, version, dist } } }));
    } else if (req.url === file) {
      res.end(tgz);
    } else {
      res.statusCode = 404;
      res.end();
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** The registry's answers `npm run release` is tested with, recorded (test/fixtures/npm-registry/). */
export const REGISTRY_ANSWERS = path.join(ROOT, 'test', 'fixtures', 'npm-registry');

export interface ReleaseRun {
  code: number;
  stdout: string;
  stderr: string;
  /** The files in the output folder, sorted (none when it was not made). */
  files: string[];
}

/**
 * `npm run release` (scripts/release.mjs, without its build: dist/ as built) of `stage`, a folder stageProject()
 * filled, into `out`, with `answer` as the registry's answer to `npm view <name> --json` (undefined: npm asks the
 * registry that `env` names).
 */
export function runRelease(stage: string, out: string, answer: string | undefined, extra: string[] = [], env: NodeJS.ProcessEnv = {}): ReleaseRun {
  const args = ['--root', stage, '--no-build', '--out', out, ...(answer ? ['--registry-answer', answer] : []), ...extra];
  const r = spawnSync(process.execPath, [path.join(ROOT, 'scripts', 'release.mjs'), ...args], {
    env: { ...npmEnv(), ...env },
    encoding: 'utf8',
    timeout: 300_000,
  });
  return { code: r.status ?? 1, stdout: r.stdout, stderr: r.stderr + (r.error ? String(r.error) : ''), files: existsSync(out) ? readdirSync(out).sort() : [] };
}
