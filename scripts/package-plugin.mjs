// The Claude Code plugin: `npm run package:plugin [-- -o checkpoint-plugin.zip] [--dir FOLDER] [--no-build]`.
// A production build, then a folder (out/plugin, or --dir) with .claude-plugin/plugin.json, the folder's own
// .claude-plugin/marketplace.json (a marketplace of this one plugin, source "./"), hooks/hooks.json, the
// skill, .mcp.json, bin/checkpoint (the sh wrapper the hooks run), README.md, LICENSE, the icon rendered from
// media/icon.svg at 512 px, and the CLI's bundles (dist/*.js); with -o, that folder zipped.
//
// The npm package is the same plugin (a marketplace entry can install it from npm): `npm pack` runs this with
// --npm first, which writes the plugin's files into the project folder for package.json's `files`, and with
// --npm-clean after, which removes them again (they are git-ignored; README.md, LICENSE and
// .claude-plugin/marketplace.json are the project's own, so the folder's marketplace is not written there).
// --root DIR: the package's folder (its package.json, LICENSE, media/icon.svg and dist/), default the project's.
import * as esbuild from 'esbuild';
import { Resvg } from '@resvg/resvg-js';
import yazl from 'yazl';
import { execFileSync } from 'node:child_process';
import { chmodSync, copyFileSync, createWriteStream, mkdirSync, readFileSync, readdirSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const argv = process.argv.slice(2);
const option = (name) => {
  const i = argv.indexOf(name);
  return i >= 0 ? argv[i + 1] : undefined;
};
const zipFile = option('-o') ?? option('--out');
const npm = argv.includes('--npm');
const packageRoot = resolve(option('--root') ?? root);

/** The plugin's text files (src/core/plugin.ts, bundled here in memory) for this package.json. */
async function textFiles() {
  const pkg = JSON.parse(readFileSync(join(packageRoot, 'package.json'), 'utf8'));
  const built = await esbuild.build({
    entryPoints: [join(root, 'src', 'core', 'plugin.ts')],
    bundle: true,
    platform: 'node',
    format: 'cjs',
    write: false,
    logLevel: 'warning',
  });
  const module = { exports: {} };
  new Function('module', 'exports', 'require', built.outputFiles[0].text)(module, module.exports, createRequire(import.meta.url));
  const { pluginFiles, PLUGIN_ICON } = module.exports;
  const author = typeof pkg.author === 'string' ? pkg.author : (pkg.author?.name ?? pkg.publisher);
  return { files: pluginFiles({ name: pkg.name, version: pkg.version, description: pkg.description, license: pkg.license, author }), icon: PLUGIN_ICON };
}

/** media/icon.svg as a 512×512 PNG (Claude Code's plugin directory wants a square PNG of 512–2048 px). */
function renderIcon() {
  const svg = readFileSync(join(packageRoot, 'media', 'icon.svg'));
  return new Resvg(svg, { fitTo: { mode: 'width', value: 512 }, background: 'rgba(0,0,0,0)' }).render().asPng();
}

/**
 * Writes the plugin's own files (not dist/ or LICENSE) into `dir`; returns their paths relative to it. `inPackage`:
 * into the npm package's folder, which has its own README.md and .claude-plugin/marketplace.json.
 */
async function writeOwnFiles(dir, { inPackage }) {
  const { files, icon } = await textFiles();
  const written = [];
  for (const [rel, text] of Object.entries(files)) {
    if (inPackage && (rel === 'README.md' || rel === '.claude-plugin/marketplace.json')) continue;
    mkdirSync(dirname(join(dir, rel)), { recursive: true });
    writeFileSync(join(dir, rel), text);
    written.push(rel);
  }
  chmodSync(join(dir, 'bin', 'checkpoint'), 0o755);
  mkdirSync(dirname(join(dir, icon)), { recursive: true });
  writeFileSync(join(dir, icon), renderIcon());
  written.push(icon);
  return written;
}

/** What --npm writes into the project folder, removed by --npm-clean (never media/ or .claude-plugin/ themselves). */
const NPM_OWN = ['.claude-plugin/plugin.json', 'hooks', 'skills', '.mcp.json', 'bin', 'media/plugin-icon.png'];

function build() {
  if (!argv.includes('--no-build')) {
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--production', '--no-typecheck'], { stdio: 'inherit', cwd: root });
  }
}

function zip(dir, file) {
  return new Promise((resolvePromise, reject) => {
    const z = new yazl.ZipFile();
    const walk = (d) => {
      for (const name of readdirSync(d).sort()) {
        const p = join(d, name);
        const rel = relative(dir, p).split('\\').join('/');
        if (statSync(p).isDirectory()) walk(p);
        else z.addFile(p, rel, { mode: statSync(p).mode });
      }
    };
    walk(dir);
    z.end();
    mkdirSync(dirname(file), { recursive: true });
    z.outputStream.pipe(createWriteStream(file)).on('close', resolvePromise).on('error', reject);
  });
}

if (argv.includes('--npm-clean')) {
  for (const rel of NPM_OWN) rmSync(join(packageRoot, rel), { recursive: true, force: true });
} else if (npm) {
  build();
  await writeOwnFiles(packageRoot, { inPackage: true });
} else {
  build();
  const dir = resolve(option('--dir') ?? join(root, 'out', 'plugin'));
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  await writeOwnFiles(dir, { inPackage: false });
  copyFileSync(join(packageRoot, 'LICENSE'), join(dir, 'LICENSE'));
  mkdirSync(join(dir, 'dist'));
  // The CLI's bundles only: the editor's (extension.js, ext-*.js) are of no use to Claude Code.
  const dist = join(packageRoot, 'dist');
  for (const f of readdirSync(dist)) if (f.endsWith('.js') && !/^ext(ension\.js|-)/.test(f)) copyFileSync(join(dist, f), join(dir, 'dist', f));
  console.log(`Plugin folder: ${dir}`);
  if (zipFile) {
    await zip(dir, resolve(zipFile));
    console.log(`Plugin zip: ${resolve(zipFile)} (${Math.round(statSync(resolve(zipFile)).size / 1024)} KB)`);
  }
}
