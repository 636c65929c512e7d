// The npm package as `npm pack` makes it, packed from a copy of the project's built files (the build the other
// tests read is left alone): the project's files, dist/, and what the prepack step writes (without its production
// build, scripts/package-plugin.mjs --npm).
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { copyFileSync, cpSync, readFileSync, rmSync } from 'node:fs';
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

/** Packs the package into `out`, staged in `stage` (both empty temp folders). */
export function packPackage(stage: string, out: string): Packed {
  for (const f of ['package.json', 'README.md', 'README.package.md', 'LICENSE', 'CHANGELOG.md', '.npmignore', '.vscodeignore']) copyFileSync(path.join(ROOT, f), path.join(stage, f));
  cpSync(path.join(ROOT, 'media'), path.join(stage, 'media'), { recursive: true });
  cpSync(path.join(ROOT, 'schema'), path.join(stage, 'schema'), { recursive: true });
  cpSync(path.join(ROOT, 'dist'), path.join(stage, 'dist'), { recursive: true });
  // A run leaves its code cache in dist/.v8-cache/ (src/codeCache.ts), which the packages must leave out: the
  // staged copy gets one of its own.
  rmSync(path.join(stage, 'dist', '.v8-cache'), { recursive: true, force: true });
  execFileSync(process.execPath, [path.join(stage, 'dist', 'cli.js'), '--version'], { timeout: 30_000 });
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
