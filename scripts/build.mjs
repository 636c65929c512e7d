// Bundles the extension, the CLI and the libraries only some runs need with esbuild, and type-checks the project.
// Usage: node scripts/build.mjs [--production] [--no-typecheck] [--metafile] [--watch]
import * as esbuild from 'esbuild';
import { execFileSync, spawn } from 'node:child_process';
import { chmodSync, readFileSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
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

/**
 * The libraries built apart, each into a file of its own: a bundle that imports one (by whatever spelling: the match
 * is on the resolved path) requires that file from dist/ at run time instead of carrying a copy. The code requires
 * them inside a function, on first use (src/core/frontMatter.ts, lock.ts, jsonEdit.ts, checkpoint.ts,
 * src/agent/agentTools.ts, mcpServer.ts), so a run that never needs one never reads it: the extension's bundle holds
 * no YAML parser, zod or lock, a session start reads none of them, and only `checkpoint mcp` reads the MCP SDK.
 */
const APART = {
  'gray-matter': 'gray-matter',
  'jsonc-parser': 'jsonc-parser',
  'proper-lockfile': 'proper-lockfile',
  schemas: './src/core/schemas.ts',
  toolSchemas: './src/agent/toolSchemas.ts',
  mcpSdk: './src/agent/mcpSdk.ts',
};

const SELF = Symbol('apart');
const apart = {
  name: 'apart',
  setup(build) {
    /** Resolved path → the dist/ file it is built into (resolved by esbuild itself, as an import of it would be). */
    let table;
    const resolveAll = async () => {
      const map = new Map();
      for (const [name, entry] of Object.entries(APART)) {
        const r = await build.resolve(entry, { kind: 'require-call', resolveDir: root, pluginData: SELF });
        if (r.errors.length > 0) throw new Error(`build: ${entry} does not resolve`);
        map.set(r.path, `./${name}.js`);
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

const common = {
  bundle: true,
  platform: 'node',
  format: 'cjs',
  target: 'node20',
  minify: production,
  sourcemap: production ? false : 'linked',
  metafile: true,
  logLevel: watch ? 'info' : 'warning',
  absWorkingDir: root,
  outdir: 'dist',
  external: ['vscode'],
  // The agent tools' texts are written once, in package.json (where VS Code reads them): the bundles carry them.
  define: { CHECKPOINT_VERSION: JSON.stringify(version), CHECKPOINT_TOOLS_DECLARED: JSON.stringify(toolDeclarations) },
  // Prefer CommonJS builds of dependencies; their ESM entries pull in extra code.
  mainFields: ['main', 'module'],
  alias: {
    // jsonc-parser's CommonJS build is a UMD wrapper whose require() calls esbuild cannot follow: its ESM build.
    'jsonc-parser': 'jsonc-parser/lib/esm/main.js',
    // proper-lockfile's graceful-fs and signal-exit patch the process on load (fs.close, process.emit, signal
    // handlers): in the extension host every extension shares. The lock gets patch-free stand-ins (src/core/shims/).
    'graceful-fs': './src/core/shims/plainFs.ts',
    'signal-exit': './src/core/shims/exitOnly.ts',
  },
  plugins: [apart],
};

const builds = {
  // The extension, the whole CLI (every command, the hook's and the MCP server's too) and the libraries apart. Inside a
  // bundle, modules import each other and never `require` one another: esbuild would wrap a required module, and all
  // that it imports, to be set up on first use, which cost a session start 4% (test/system/bundles.test.ts).
  bundles: { ...common, entryPoints: { extension: 'src/editor/extension.ts', 'cli-main': 'src/cli/main.ts', ...APART } },
  // `checkpoint` itself (package.json `bin`): it loads dist/cli-main.js with V8's code cache (src/cli/entry.ts).
  entry: { ...common, entryPoints: { cli: 'src/cli/entry.ts' }, banner: { js: '#!/usr/bin/env node' } },
};

if (watch) {
  // `npm run watch`: rebuilds the bundles on change, and beside it `tsc --watch` type-checks and compiles the tests
  // (out/), so Run Extension and the unit tests (.vscode/launch.json) always see the saved code.
  for (const options of Object.values(builds)) await (await esbuild.context(options)).watch();
  spawn(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--watch', '--preserveWatchOutput'], { stdio: 'inherit' });
} else {
  const results = Object.fromEntries(await Promise.all(Object.entries(builds).map(async ([name, options]) => [name, await esbuild.build(options)])));
  const { bundles } = results;

  // Bundles of an earlier layout would be packaged with dist/*.js: dist/ holds this build's files alone (and no code
  // cache of an earlier build).
  const built = new Set(Object.values(results).flatMap((r) => Object.keys(r.metafile.outputs)));
  for (const f of readdirSync(join(root, 'dist'))) if (/\.js(\.map)?$/.test(f) && !built.has(`dist/${f}`)) rmSync(join(root, 'dist', f));
  rmSync(join(root, 'dist', '.v8-cache'), { recursive: true, force: true });

  // The CLI is run directly as `checkpoint` (package.json `bin`): make it executable.
  chmodSync(join(root, 'dist', 'cli.js'), 0o755);

  if (args.has('--metafile')) {
    // One metafile per bundle (out/meta-<name>.json), for esbuild's analyzer.
    mkdirSync(join(root, 'out'), { recursive: true });
    for (const [file, output] of Object.entries(bundles.metafile.outputs)) {
      const name = /^dist\/([\w-]+)\.js$/.exec(file)?.[1];
      if (name) writeFileSync(resolve(root, 'out', `meta-${name}.json`), JSON.stringify({ inputs: bundles.metafile.inputs, outputs: { [file]: output } }));
    }
  }

  if (!args.has('--no-typecheck')) {
    execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--noEmit'], {
      stdio: 'inherit',
    });
  }
}
