// Bundles the extension, the CLI (its entry, the whole CLI and the hook's own bundle), the CLI's MCP server and the
// libraries only some runs need with esbuild, and type-checks the project.
// Usage: node scripts/build.mjs [--production] [--no-typecheck] [--metafile] [--watch]
import * as esbuild from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const args = new Set(process.argv.slice(2));
const production = args.has('--production');
const watch = args.has('--watch');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { version } = manifest;
/** The agent tools' declarations, without their schemas (src/agent/agentTools.ts takes their texts from them). */
const toolDeclarations = manifest.contributes.languageModelTools.map(({ inputSchema: _schema, ...texts }) => texts);

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
  external: ['vscode'],
  // The agent tools' texts are written once, in package.json (where VS Code reads them): the bundles carry them.
  define: { CHECKPOINT_VERSION: JSON.stringify(version), CHECKPOINT_TOOLS_DECLARED: JSON.stringify(toolDeclarations) },
  // Prefer CommonJS builds of dependencies; their ESM entries pull in extra code.
  mainFields: ['main', 'module'],
  // jsonc-parser's CommonJS build is a UMD wrapper whose require() calls esbuild cannot follow: use its ESM build.
  alias: { 'jsonc-parser': 'jsonc-parser/lib/esm/main.js' },
};

/**
 * The files built apart: each is a bundle of its own, and every other bundle that imports it (by whatever spelling:
 * the match is on the resolved path) requires it from dist/ at run time instead of carrying a copy. The code requires
 * these inside a function, on first use (src/core/frontMatter.ts, lock.ts, jsonEdit.ts, checkpoint.ts,
 * agentTools.ts, cli/mcp.ts, cliEntry.ts), so a run that never needs one never parses it: a session start loads only
 * dist/cli.js and dist/hook.js, a save never loads YAML, the extension's bundle holds no zod and no MCP SDK.
 */
const APART = [
  { entry: 'gray-matter', outfile: 'dist/gray-matter.js' },
  { entry: 'jsonc-parser', outfile: 'dist/jsonc-parser.js' },
  { entry: 'proper-lockfile', outfile: 'dist/proper-lockfile.js' },
  { entry: './src/core/schemas.ts', outfile: 'dist/schemas.js' },
  { entry: './src/agent/toolSchemas.ts', outfile: 'dist/toolSchemas.js' },
  { entry: './src/agent/mcpServer.ts', outfile: 'dist/mcpServer.js' },
  { entry: './src/cli/hookEntry.ts', outfile: 'dist/hook.js' },
  { entry: './src/cli/main.ts', outfile: 'dist/cli-main.js' },
];
/**
 * proper-lockfile's graceful-fs and signal-exit patch the process on load (fs.close, process.emit, signal handlers):
 * in the extension host every extension shares. Its bundle gets patch-free stand-ins (src/core/shims/).
 */
const PATCH_FREE = { 'graceful-fs': './src/core/shims/plainFs.ts', 'signal-exit': './src/core/shims/exitOnly.ts' };

const SELF = Symbol('apart');
const apart = {
  name: 'apart',
  setup(build) {
    /** Resolved path → the dist/ file it is built into (resolved by esbuild itself, as an import of it would be). */
    let table;
    const resolveAll = async () => {
      const map = new Map();
      for (const { entry, outfile } of APART) {
        const r = await build.resolve(entry, { kind: 'require-call', resolveDir: root, pluginData: SELF });
        if (r.errors.length > 0) throw new Error(`build: ${entry} does not resolve`);
        map.set(r.path, `./${outfile.slice('dist/'.length)}`);
      }
      return map;
    };
    build.onResolve({ filter: /.*/ }, async (a) => {
      if (a.pluginData === SELF || a.kind === 'entry-point' || a.path === 'vscode' || a.path.startsWith('node:')) return undefined;
      table ??= resolveAll();
      const r = await build.resolve(a.path, { kind: a.kind, resolveDir: a.resolveDir, importer: a.importer, pluginData: SELF });
      const file = (await table).get(r.path);
      return file ? { path: file, external: true } : undefined;
    });
  },
};

const builds = {
  // In watch mode the extension's build says when a rebuild starts and ends (the others only warn).
  extension: { ...common, entryPoints: ['src/editor/extension.ts'], outfile: 'dist/extension.js', plugins: [apart], logLevel: watch ? 'info' : 'warning' },
  cli: { ...common, entryPoints: ['src/cli/entry.ts'], outfile: 'dist/cli.js', banner: { js: '#!/usr/bin/env node' }, plugins: [apart] },
  ...Object.fromEntries(
    APART.map(({ entry, outfile }) => [
      outfile.slice('dist/'.length, -'.js'.length),
      { ...common, entryPoints: [entry], outfile, alias: { ...common.alias, ...PATCH_FREE }, plugins: [apart] },
    ]),
  ),
};

if (watch) {
  // `npm run watch`: rebuilds each bundle on change, and beside it `tsc --watch` type-checks and compiles the tests
  // (out/), so Run Extension and the unit tests (.vscode/launch.json) always see the saved code.
  for (const options of Object.values(builds)) await (await esbuild.context(options)).watch();
  spawn(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
} else {
  const results = Object.fromEntries(await Promise.all(Object.entries(builds).map(async ([name, options]) => [name, await esbuild.build(options)])));

  // The CLI is run directly as `checkpoint` (package.json `bin`): make it executable.
  chmodSync(join(root, 'dist', 'cli.js'), 0o755);

  if (args.has('--metafile')) {
    mkdirSync(join(root, 'out'), { recursive: true });
    for (const [name, file] of [['extension', 'extension'], ['cli-main', 'cli'], ['hook', 'hook'], ['mcpServer', 'mcp']]) {
      writeFileSync(resolve(root, 'out', `meta-${file}.json`), JSON.stringify(results[name].metafile));
    }
  }

  if (!args.has('--no-typecheck')) {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--noEmit'], {
      stdio: 'inherit',
    });
  }
}
