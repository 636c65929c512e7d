// Bundles the extension, the CLI, the CLI's MCP server and the commit module with esbuild and type-checks the project.
// Usage: node scripts/build.mjs [--production] [--no-typecheck] [--metafile]
import * as esbuild from 'esbuild';
import { execFileSync } from 'node:child_process';
import { chmodSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
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
 * Save and Commit requires src/core/commit.ts at run time as dist/commit.js (src/commitModule.ts): simple-git stays
 * out of dist/cli.js and dist/extension.js.
 */
const commitApart = {
  name: 'commit-apart',
  setup(build) {
    build.onResolve({ filter: /^\.\/core\/commit$/ }, () => ({ path: './commit.js', external: true }));
  },
};

const results = await Promise.all([
  esbuild.build({ ...common, entryPoints: ['src/extension.ts'], outfile: 'dist/extension.js', external: ['vscode'], plugins: [commitApart] }),
  esbuild.build({
    ...common,
    entryPoints: ['src/cli.ts'],
    outfile: 'dist/cli.js',
    banner: { js: '#!/usr/bin/env node' },
    define: { CHECKPOINT_VERSION: JSON.stringify(version) },
    plugins: [mcpServerApart, commitApart],
  }),
  esbuild.build({ ...common, entryPoints: ['src/mcpServer.ts'], outfile: 'dist/mcpServer.js', define: { CHECKPOINT_VERSION: JSON.stringify(version) } }),
  esbuild.build({ ...common, entryPoints: ['src/core/commit.ts'], outfile: 'dist/commit.js' }),
]);

// The CLI is run directly as `checkpoint` (package.json `bin`): make it executable.
chmodSync(join(root, 'dist', 'cli.js'), 0o755);

if (args.has('--metafile')) {
  mkdirSync(join(root, 'out'), { recursive: true });
  writeFileSync(join(root, 'out', 'meta-extension.json'), JSON.stringify(results[0].metafile));
  writeFileSync(join(root, 'out', 'meta-cli.json'), JSON.stringify(results[1].metafile));
  writeFileSync(join(root, 'out', 'meta-mcp.json'), JSON.stringify(results[2].metafile));
}

if (!args.has('--no-typecheck')) {
  execFileSync(process.execPath, [join(root, 'node_modules', 'typescript', 'bin', 'tsc'), '-p', root, '--noEmit'], {
    stdio: 'inherit',
  });
}
