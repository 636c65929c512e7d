// Starts a real VS Code (code-server) on 127.0.0.1 and drives its web workbench with Debian's chromium.
// Every server and browser started here is stopped on stop()/close(), and on exit, SIGINT and SIGTERM.
import { spawn } from 'node:child_process';
import {
  cpSync,
  createWriteStream,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readFileSync,
  readdirSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { ensureVSCodeEnv, CHROMIUM } from './vscode-env.mjs';

// ---- cleanup registry: sync work for 'exit', async work for signals --------------------------------
const cleanups = new Set(); // { sync(): void, async(): Promise<void> }
let handlersInstalled = false;

/**
 * Registers cleanup work run on process exit (sync, must not await) and on SIGINT/SIGTERM (async, then exit).
 * @returns {() => void} unregister
 */
export function registerCleanup(entry) {
  cleanups.add(entry);
  if (!handlersInstalled) {
    handlersInstalled = true;
    process.on('exit', () => {
      for (const c of cleanups) {
        try {
          c.sync();
        } catch {
          /* best effort */
        }
      }
    });
    // `on`, not `once`: playwright bundles signal-exit, which re-raises a signal when no other listener
    // is left, which would kill us mid-cleanup. A second signal exits at once (the 'exit' cleanup still runs).
    let signalled = false;
    for (const sig of ['SIGINT', 'SIGTERM']) {
      process.on(sig, async () => {
        const code = sig === 'SIGINT' ? 130 : 143;
        if (signalled) process.exit(code);
        signalled = true;
        await Promise.allSettled([...cleanups].map((c) => c.async()));
        process.exit(code);
      });
    }
  }
  return () => cleanups.delete(entry);
}

// ---- the extension under test ----------------------------------------------------------------------
const repoRoot = resolve(fileURLToPath(new URL('../..', import.meta.url)));
// What of the repo makes up the installed extension (dependencies are bundled into dist/).
const EXTENSION_FILES = ['package.json', 'package.nls.json', 'dist', 'media', 'README.md', 'LICENSE', 'CHANGELOG.md'];

/** Copies this repo's extension files into `dest`, so node_modules and sources are not scanned. */
export function stageRepoExtension(dest) {
  if (!existsSync(join(repoRoot, 'dist', 'extension.js'))) {
    throw new Error('dist/extension.js is missing: build first (npm run build)');
  }
  mkdirSync(dest, { recursive: true });
  for (const name of EXTENSION_FILES) {
    const src = join(repoRoot, name);
    if (existsSync(src)) cpSync(src, join(dest, name), { recursive: true });
  }
  return dest;
}

// ---- helpers ----------------------------------------------------------------------------------------
/** A free TCP port on 127.0.0.1 (asks the OS for one, then releases it). */
export function freePort() {
  return new Promise((res, rej) => {
    const srv = createServer();
    srv.unref();
    srv.on('error', rej);
    srv.listen(0, '127.0.0.1', () => {
      const { port } = srv.address();
      srv.close(() => res(port));
    });
  });
}

const delay = (ms) => new Promise((r) => setTimeout(r, ms));

/** Polls `check` every `interval` ms until it returns a truthy value or `timeout` ms pass. */
export async function waitFor(check, { timeout = 60_000, interval = 200, what = 'condition' } = {}) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`Timed out after ${timeout} ms waiting for ${what}`);
    await delay(interval);
  }
}

function killGroup(pid, signal) {
  try {
    process.kill(-pid, signal); // the whole process group (server, extension host, pty host, their children)
    return true;
  } catch {
    return false; // ESRCH: already gone
  }
}

function extensionFolderName(dir) {
  const pkg = JSON.parse(readFileSync(join(dir, 'package.json'), 'utf8'));
  if (!pkg.publisher || !pkg.name || !pkg.version) throw new Error(`${dir}/package.json lacks publisher/name/version`);
  return `${pkg.publisher}.${pkg.name}-${pkg.version}`;
}

/** Files under `dir` (at most `maxDepth` folders down) whose name matches `re`, oldest first. */
export function findFiles(dir, re, maxDepth = 6) {
  const found = [];
  const walk = (d, depth) => {
    let entries;
    try {
      entries = readdirSync(d, { withFileTypes: true });
    } catch {
      return;
    }
    for (const e of entries) {
      const p = join(d, e.name);
      if (e.isDirectory() && depth < maxDepth) walk(p, depth + 1);
      else if (e.isFile() && re.test(e.name)) found.push(p);
    }
  };
  walk(dir, 0);
  return found.sort((a, b) => statSync(a).mtimeMs - statSync(b).mtimeMs);
}

/** Paths of the extension host logs (<user-data-dir>/logs/<timestamp>/exthost<N>/remoteexthost.log). */
export function findExthostLogs(userDataDir) {
  return findFiles(join(userDataDir, 'logs'), /^remoteexthost\.log$/, 4);
}

/** The last `lines` lines of a text file ('' if unreadable). */
export function tailFile(file, lines = 60) {
  try {
    return readFileSync(file, 'utf8').split('\n').slice(-lines).join('\n');
  } catch {
    return '';
  }
}

// ---- code-server ------------------------------------------------------------------------------------
/**
 * Starts code-server on a free 127.0.0.1 port with temp user-data and extensions dirs.
 * @param {object} opts
 * @param {string} [opts.workspace] folder or .code-workspace file to open (also used by openWorkbench)
 * @param {string[]} [opts.extensionDirs] extension folders (with package.json) to install
 * @param {boolean} [opts.copyExtensions=false] copy the folders instead of symlinking them
 * @param {string[]} [opts.vsixFiles] .vsix packages to install first, as a user does (`code-server --install-extension`)
 * @param {object} [opts.userSettings] merged over the defaults, written to <user-data-dir>/User/settings.json
 * @param {Record<string,string>} [opts.env] extra environment for code-server and its extension host;
 *   HOME and XDG_* default to a temp home so the real one is never touched
 * @param {boolean} [opts.workspaceTrust=false] true: keep Workspace Trust on (folders open in Restricted Mode
 *   without a prompt, unless userSettings say otherwise); false: pass --disable-workspace-trust
 * @param {boolean} [opts.verbose=false] echo the server's output to stderr
 * @param {boolean} [opts.keepTemp=false] keep the temp dirs on stop (for debugging)
 * @param {number} [opts.timeout=60000] ms to wait for the server to answer HTTP
 * @param {'latest'|'oldest'} [opts.vscode='latest'] which VS Code (vscode-env.mjs VSCODE_TARGETS)
 * @returns {Promise<{url:string, port:number, userDataDir:string, extensionsDir:string, tempDir:string,
 *   workspace?:string, pid:number, vscodeVersion:string, log():string, exthostLogs():string[], stop():Promise<void>}>}
 */
export async function startCodeServer({
  workspace,
  extensionDirs = [],
  copyExtensions = false,
  vsixFiles = [],
  userSettings = {},
  env = {},
  workspaceTrust = false,
  verbose = false,
  keepTemp = false,
  timeout = 60_000,
  vscode = 'latest',
} = {}) {
  const { node, codeServer, vscodeVersion } = await ensureVSCodeEnv({ vscode }); // prints progress only when it must install
  const tempDir = mkdtempSync(join(tmpdir(), 'checkpoint-cs-'));
  const userDataDir = join(tempDir, 'user-data');
  const extensionsDir = join(tempDir, 'extensions');
  const home = join(tempDir, 'home');
  for (const d of [join(userDataDir, 'User'), extensionsDir, home]) mkdirSync(d, { recursive: true });

  let child;
  let stopped = false;
  const removeTemp = () => {
    if (!keepTemp) rmSync(tempDir, { recursive: true, force: true, maxRetries: 3 });
  };
  const unregister = registerCleanup({
    sync: () => {
      if (child?.pid) killGroup(child.pid, 'SIGKILL');
      removeTemp();
    },
    async: () => stop(),
  });

  async function stop() {
    if (stopped) return;
    stopped = true;
    unregister();
    if (child?.pid && child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((r) => child.once('exit', r));
      killGroup(child.pid, 'SIGTERM');
      const t = setTimeout(() => killGroup(child.pid, 'SIGKILL'), 5000);
      await exited;
      clearTimeout(t);
    }
    if (child?.pid) killGroup(child.pid, 'SIGKILL'); // stragglers left in the group after the leader exits
    removeTemp();
  }

  try {
    for (const dir of extensionDirs) {
      const src = resolve(dir);
      const dest = join(extensionsDir, extensionFolderName(src));
      if (copyExtensions) cpSync(src, dest, { recursive: true, dereference: true });
      else symlinkSync(src, dest, 'dir');
    }

    for (const vsix of vsixFiles) {
      await new Promise((done, fail) => {
        const args = [codeServer, '--extensions-dir', extensionsDir, '--user-data-dir', userDataDir, '--install-extension', resolve(vsix)];
        const install = spawn(node, args, { env: { ...process.env, HOME: home }, stdio: ['ignore', 'pipe', 'pipe'], timeout: 120_000 });
        let out = '';
        for (const s of [install.stdout, install.stderr]) s.on('data', (d) => (out += d));
        install.on('error', fail);
        install.on('close', (code) => (code === 0 ? done() : fail(new Error(`code-server --install-extension ${vsix} failed (${code}):\n${out}`))));
      });
    }

    const settings = {
      'workbench.startupEditor': 'none',
      'workbench.tips.enabled': false,
      'workbench.enableExperiments': false,
      'extensions.autoUpdate': false,
      'extensions.autoCheckUpdates': false,
      'extensions.ignoreRecommendations': true,
      'telemetry.telemetryLevel': 'off',
      'update.mode': 'none',
      'chat.disableAIFeatures': true,
      'workbench.secondarySideBar.defaultVisibility': 'hidden',
      'git.autoRepositoryDetection': true,
      ...(workspaceTrust ? { 'security.workspace.trust.startupPrompt': 'never' } : {}),
      ...userSettings,
    };
    writeFileSync(join(userDataDir, 'User', 'settings.json'), JSON.stringify(settings, null, 2));
    const configFile = join(tempDir, 'config.yaml'); // keeps code-server off ~/.config/code-server
    writeFileSync(configFile, 'auth: none\n');

    const port = await freePort();
    const args = [
      codeServer,
      '--config', configFile,
      '--auth', 'none',
      '--bind-addr', `127.0.0.1:${port}`,
      '--disable-telemetry',
      '--disable-update-check',
      '--disable-getting-started-override',
      '--ignore-last-opened',
      '--user-data-dir', userDataDir,
      '--extensions-dir', extensionsDir,
      ...(workspaceTrust ? [] : ['--disable-workspace-trust']),
      ...(workspace ? [resolve(workspace)] : []),
    ];
    // Drop variables of an enclosing VS Code/Electron so the server does not talk to it.
    const baseEnv = Object.fromEntries(
      Object.entries(process.env).filter(([k]) => !/^(VSCODE_|ELECTRON_)/.test(k)),
    );
    const childEnv = {
      ...baseEnv,
      HOME: home,
      XDG_CONFIG_HOME: join(home, '.config'),
      XDG_DATA_HOME: join(home, '.local', 'share'),
      XDG_CACHE_HOME: join(home, '.cache'),
      XDG_STATE_HOME: join(home, '.local', 'state'),
      ...env,
    };

    const logPath = join(tempDir, 'code-server.log');
    const logStream = createWriteStream(logPath);
    // detached: own process group, so stop() can kill the server together with everything it spawned.
    child = spawn(node, args, { env: childEnv, cwd: tempDir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
    for (const s of [child.stdout, child.stderr]) {
      s.on('data', (d) => {
        logStream.write(d);
        if (verbose) process.stderr.write(d);
      });
    }
    child.on('exit', () => logStream.end());
    let spawnError;
    child.on('error', (e) => (spawnError = e));

    const url = `http://127.0.0.1:${port}/`;
    await waitFor(
      async () => {
        if (spawnError) throw spawnError;
        if (child.exitCode !== null || child.signalCode !== null) {
          throw new Error(`code-server exited early (${child.exitCode ?? child.signalCode}):\n${tailFile(logPath, 40)}`);
        }
        try {
          const r = await fetch(`${url}healthz`, { signal: AbortSignal.timeout(2000) });
          return r.ok;
        } catch {
          return false;
        }
      },
      { timeout, what: `code-server on ${url}` },
    );

    return {
      url,
      port,
      userDataDir,
      extensionsDir,
      tempDir,
      workspace: workspace ? resolve(workspace) : undefined,
      pid: child.pid,
      vscodeVersion,
      log: () => tailFile(logPath, 200),
      exthostLogs: () => findExthostLogs(userDataDir),
      stop,
    };
  } catch (err) {
    await stop();
    throw err;
  }
}

// ---- browser ----------------------------------------------------------------------------------------
const BROWSER_ARGS = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--disable-quic',
];

/** Launches Debian's chromium (headless) through playwright-core; closed on exit/signals too. */
export async function launchBrowser({ headless = true, args = [] } = {}) {
  if (!existsSync(CHROMIUM)) await ensureVSCodeEnv();
  const { chromium } = await import('playwright-core');
  // Chromium writes crash-report and dconf folders under HOME: give it a temp one.
  const home = mkdtempSync(join(tmpdir(), 'checkpoint-browser-'));
  const removeHome = () => rmSync(home, { recursive: true, force: true, maxRetries: 3 });
  // Signals are handled by our registry (closing browser and servers in order); on 'exit'
  // playwright kills the browsers it launched by itself.
  let browser;
  try {
    browser = await chromium.launch({
      executablePath: CHROMIUM,
      headless,
      args: [...BROWSER_ARGS, ...args],
      env: { ...process.env, HOME: home, XDG_CONFIG_HOME: join(home, '.config'), XDG_CACHE_HOME: join(home, '.cache') },
      handleSIGINT: false,
      handleSIGTERM: false,
    });
  } catch (err) {
    removeHome();
    throw err;
  }
  const unregister = registerCleanup({
    sync: removeHome,
    async: () => browser.close().catch(() => {}).finally(removeHome),
  });
  browser.on('disconnected', () => {
    unregister();
    removeHome();
  });
  return browser;
}

/**
 * Opens the workbench for `folder` (a folder, or a .code-workspace file) and waits until it is rendered.
 * @param {import('playwright-core').Browser} browser
 * @param {string} url base URL from startCodeServer
 * @param {string} [folder] absolute path; none opens an empty window
 * @param {{timeout?: number, viewport?: {width:number,height:number}}} [opts]
 * @returns {Promise<import('playwright-core').Page>}
 */
export async function openWorkbench(browser, url, folder, { timeout = 60_000, viewport = { width: 1400, height: 900 } } = {}) {
  const page = await browser.newPage({ viewport });
  let target = url;
  if (folder) {
    const abs = resolve(folder);
    const key = abs.endsWith('.code-workspace') ? 'workspace' : 'folder';
    target = `${url}?${key}=${encodeURIComponent(abs)}`;
  }
  await page.goto(target, { timeout });
  await page.waitForSelector('.monaco-workbench', { timeout });
  // The status bar is among the last parts laid out; waiting for it avoids half-drawn screenshots.
  await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout });
  return page;
}
