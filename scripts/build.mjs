// Bundles the extension, the CLI (its entry, the whole CLI and the hook's own bundle) and the CLI's MCP server with esbuild and type-checks the project.
// Usage: node scripts/build.mjs [--production] [--no-typecheck] [--metafile]
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const { version } = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: production,
  sourcemap: production ? false : 'linked',
  metafile: true,
  logLevel: 'warning',
  absWorkingDir: root,
  // Prefer CommonJS builds of dependencies; their ESM entries pull in extra code.
  mainFields: ['main', 'module'],
  // jsonc-parser's CommonJS build is a UMD wrapper whose require() calls esbuild cannot follow: use its ESM build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

/** `checkpoint mcp` requires src/mcpServer.ts at run time as dist/mcpServer.js: the MCP SDK stays out of dist/cli.js. */
const mcpServerApart = {
  name: 'mcp-server-apart',
  setup(build) {
    build.onResolve({ filter: /[\\/]mcpServer$/ }, () => ({ path: './mcpServer.js', external: true }));
  },
};

/**
 * dist/cli.js (src/cliEntry.ts) requires the hook's bundle or the whole CLI at run time: `checkpoint hook …`, run at
 * every agent start, never parses the rest of the CLI.
 */
const cliApart = {
  name: 'cli-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/(hookCli|cli)$/ }, (a) => ({ path: a.path === './hookCli' ? './hook.js' : './cli-main.js', external: true }));
  },
};

/**
 * Libraries the code requires on first use (inside a function, see src/core/frontMatter.ts, lock.ts, jsonEdit.ts,
 * checkpoint.ts), each bundled once into a file of its own: a run that never needs one never parses it (a session
 * start never loads the lock, a save never loads YAML), and the .vsix carries one copy instead of one per bundle.
 */
const LAZY = {
  'gray-matter': { entry: 'gray-matter', outfile: 'dist/gray-matter.js' },
  'jsonc-parser': { entry: 'jsonc-parser', outfile: 'dist/jsonc-parser.js' },
  'proper-lockfile': { entry: 'proper-lockfile', outfile: 'dist/proper-lockfile.js' },
  './schemas': { entry: 'src/core/schemas.ts', outfile: 'dist/schemas.js' },
  './toolSchemas': { entry: 'src/toolSchemas.ts', outfile: 'dist/toolSchemas.js' },
};
/**
 * proper-lockfile's graceful-fs and signal-exit patch the process on load (fs.close, process.emit, signal handlers):
 * in the extension host every extension shares. Its bundle gets patch-free stand-ins (src/shims/).
 */
const PATCH_FREE = { 'graceful-fs': './src/shims/plainFs.ts', 'signal-exit': './src/shims/exitOnly.ts' };
const lazyApart = {
  name: 'lazy-apart',
  setup(build) {
    // Exactly the names in LAZY (each escaped for the filter).
    const filter = new RegExp(`^(${Object.keys(LAZY).map((k) => k.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')).join('|')})$`);
    build.onResolve({ filter }, (a) => ({ path: `./${LAZY[a.path].outfile.slice('dist/'.length)}`, external: true }));
  },
};

/**
 * Every module that does `import * as path from 'node:path'` would get its own copy of that module's properties at
 * load time (esbuild's CommonJS interop, `__toESM`): each such module is imported through one module that re-exports
 * it instead, so the copy is made once per file. (The extension's modules take the editor API, several hundred
 * properties, as `import vscode = require('vscode')`, which esbuild turns into a call of `require`: no copy at all.)
 */
const importedOnce = {
  name: 'imported-once',
  setup(build) {
    build.onResolve({ filter: /^(vscode|node:[a-z_/]+)$/ }, (a) => {
      if (a.namespace === 'once') return { path: a.path, external: true };
      // A require() in a function (a module loaded on first use) stays a plain require().
      return a.kind === 'import-statement' ? { path: a.path, namespace: 'once' } : { path: a.path, external: true };
    });
    build.onLoad({ filter: /.*/, namespace: 'once' }, (a) => ({ contents: `export * from ${JSON.stringify(a.path)};`, loader: 'js' }));
  },
};

/**
 * The extension: dist/extension.js, and what it loads on first use through `import()` (the commands' code,
 * src/commands/handlers.ts; the core it works with after activation, src/lazyCore.ts), each a file, with the modules
 * they share in shared files (dist/ext-*.js), so each module exists once. esbuild splits ES modules only: the split
 * files are written to a temporary folder, then turned into CommonJS one by one (`import()` becomes a require() in a
 * promise), following their source maps.
 */
async function buildExtension() {
  // The split files' names carry a hash of their content: the previous build's go first (a fresh clone has no dist/).
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (const f of readdirSync(join(root, 'dist'))) if (/^ext-.*\.js(\.map)?$/.test(f)) rmSync(join(root, 'dist', f));
  const esm = mkdtempSync(join(tmpdir(), 'checkpoint-build-'));
  try {
    const split = await esbuild.build({
      ...common,
      format: 'esm',
      splitting: true,
      entryPoints: ['src/extension.ts'],
      outdir: esm,
      chunkNames: 'ext-[name]-[hash]',
      plugins: [importedOnce, lazyApart],
    });
    const { platform, target, minify, sourcemap, logLevel, absWorkingDir } = common;
    await esbuild.build({
      ...{ platform, target, minify, sourcemap, logLevel, absWorkingDir },
      format: 'cjs',
      entryPoints: Object.keys(split.metafile.outputs).filter((f) => f.endsWith('.js')).map((f) => resolve(root, f)),
      outdir: 'dist',
      supported: { 'dynamic-import': false },
    });
    return split;
  } finally {
    rmSync(esm, { recursive: true, force: true });
  }
}

const cliBundle = (entry, outfile) => ({
  ...common,
  entryPoints: [entry],
  outfile,
  define: { CHECKPOINT_VERSION: JSON.stringify(version) },
  plugins: [importedOnce, mcpServerApart, lazyApart],
});

const results = await Promise.all([
  buildExtension(),
  esbuild.build(cliBundle('src/cli.ts', 'dist/cli-main.js')),
  esbuild.build({ ...common, entryPoints: ['src/cliEntry.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [cliApart] }),
  esbuild.build(cliBundle('src/hookCli.ts', 'dist/hook.js')),
  esbuild.build({ ...common, entryPoints: ['src/mcpServer.ts'], outfile: 'dist/mcpServer.js', define: { CHECKPOINT_VERSION: JSON.stringify(version) }, plugins: [importedOnce, lazyApart] }),
  ...Object.values(LAZY).map(({ entry, outfile }) => esbuild.build({ ...common, entryPoints: [entry], outfile, alias: { ...common.alias, ...PATCH_FREE } })),
]);

// The CLI is run directly as `checkpoint` (package.json `bin`): make it executable.
chmodSync(join(root, 'dist', 'cli.js'), 0o755);

if (args.has('--metafile')) {
  mkdirSync(join(root, 'out'), { recursive: true });
  writeFileSync(join(root, 'out', 'meta-extension.json'), JSON.stringify(results[0].metafile));
  writeFileSync(join(root, 'out', 'meta-cli.json'), JSON.stringify(results[1].metafile));
  writeFileSync(join(root, 'out', 'meta-hook.json'), JSON.stringify(results[3].metafile));
  writeFileSync(join(root, 'out', 'meta-mcp.json'), JSON.stringify(results[4].metafile));
}

if (!args.has('--no-typecheck')) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--noEmit'], {
    stdio: 'inherit',
  });
}
