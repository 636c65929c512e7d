// activate() time of the extension in a real VS Code (code-server from scripts/harness/code-server.mjs, headless chromium).
//
// VS Code's own number is read from "Developer: Show Running Extensions": codeLoadingTime + activateCallTime, i.e.
// the require of dist/extension.js plus the synchronous part of activate(). At startup that number also counts
// the time the extension host spends on every other extension activating at once (a trivial extension shows tens
// of ms there), so the bench measures activation on demand in an idle host instead:
//  - the extension is installed from a staged copy whose manifest drops `onStartupFinished` (the code is the same);
//  - a probe extension waits until the window has settled, activates a first trivial extension (the host's one-time
//    work for the first extension activated on demand, ~4 ms here, lands on it, as it lands on others' at a real
//    start-up), then the extension and a second trivial extension (the floor: same host, same moment), alternating
//    which goes first;
//  - each run reloads the window, which starts a new extension host (a cold require + activate).
import { cpSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const EXTENSION_FILES = ['package.json', 'package.nls.json', 'media', 'README.md', 'LICENSE', 'CHANGELOG.md'];
const PROBE_NAME = 'zz checkpoint bench probe';
const TRIVIAL_NAME = 'zz checkpoint bench trivial';
const TRIVIAL_ID = 'checkpoint-dev.checkpoint-bench-trivial';
const WARM_UP_ID = 'checkpoint-dev.checkpoint-bench-warm-up';
const SETTLE_MS = 2500;

const PROBE_JS = `'use strict';
const vscode = require('vscode');
const fs = require('fs');
const delay = (ms) => new Promise((r) => setTimeout(r, ms));
exports.activate = async function () {
  const id = process.env.CHECKPOINT_BENCH_TARGET;
  const out = process.env.CHECKPOINT_BENCH_PROBE_OUT;
  if (!id || !out) return;
  const run = fs.readFileSync(out, 'utf8').split('\\n').filter(Boolean).length;
  await delay(Number(process.env.CHECKPOINT_BENCH_SETTLE_MS || 0));
  const ext = vscode.extensions.getExtension(id);
  const trivial = vscode.extensions.getExtension('${TRIVIAL_ID}');
  const warmUp = vscode.extensions.getExtension('${WARM_UP_ID}');
  const rec = { run, vscodeVersion: vscode.version, found: !!ext && !!trivial && !!warmUp, wasActive: !!(ext && ext.isActive) };
  try {
    if (warmUp) await warmUp.activate();
    const order = run % 2 === 0 ? [trivial, ext] : [ext, trivial];
    for (const e of order) if (e) await e.activate();
    rec.order = run % 2 === 0 ? 'trivial first' : 'extension first';
  } catch (e) {
    rec.error = String((e && e.message) || e).split('\\n')[0];
  }
  fs.appendFileSync(out, JSON.stringify(rec) + '\\n');
};
exports.deactivate = function () {};
`;

const delay = (ms) => new Promise((r) => setTimeout(r, ms));

async function waitFor(check, timeout, what) {
  const end = Date.now() + timeout;
  for (;;) {
    const v = await check();
    if (v) return v;
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
    await delay(100);
  }
}

function writeExtension(dir, manifest, js) {
  mkdirSync(dir, { recursive: true });
  writeFileSync(
    join(dir, 'package.json'),
    JSON.stringify({
      publisher: 'checkpoint-dev',
      version: '0.0.1',
      private: true,
      engines: { vscode: '^1.100.0' },
      main: './extension.js',
      capabilities: { untrustedWorkspaces: { supported: true }, virtualWorkspaces: true },
      ...manifest,
    }),
  );
  writeFileSync(join(dir, 'extension.js'), js);
}

/**
 * Reads "Activation: N ms" of the named rows of the Running Extensions editor. Its list is virtualized (and the
 * editor may open as a small floating window), so it is scrolled with the mouse wheel until every row was seen.
 */
async function readActivationTimes(page, names, timeout = 30_000) {
  const found = {};
  const end = Date.now() + timeout;
  await page.waitForSelector('.runtime-extensions-editor .monaco-list-row', { timeout });
  let scrolled = 0;
  for (;;) {
    const seen = await page.evaluate((wanted) => {
      const out = {};
      for (const row of document.querySelectorAll('.runtime-extensions-editor .monaco-list-row')) {
        const name = row.querySelector('.name')?.textContent?.trim();
        if (!wanted.includes(name)) continue;
        const m = /(\d+(?:\.\d+)?)\s*ms/.exec(row.querySelector('.activation-time')?.textContent ?? '');
        if (m) out[name] = Number(m[1]);
      }
      return out;
    }, names);
    Object.assign(found, seen);
    if (names.every((n) => found[n] !== undefined)) return found;
    if (Date.now() > end) throw new Error(`timed out reading ${names.filter((n) => found[n] === undefined).join(', ')} in Running Extensions`);
    const box = await page.locator('.runtime-extensions-editor .monaco-list').first().boundingBox();
    if (box && scrolled < 30) {
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      await page.mouse.wheel(0, scrolled++ < 15 ? 400 : -400);
    }
    await delay(150);
  }
}

/**
 * @returns {Promise<{vscode: number[], floor: number[], vscodeVersion?: string, notes: string[]} | {unavailable: string}>}
 *   vscode: the extension's times (ms); floor: the trivial extension's, activated at the same moment.
 */
export async function measureRealActivation({ root, bundleDist, runs, log = () => {}, budgetMs = 4 * 60_000 }) {
  const csPath = join(root, 'scripts', 'harness', 'code-server.mjs');
  if (!existsSync(csPath)) return { unavailable: 'scripts/harness/code-server.mjs is missing' };
  const cs = await import(pathToFileURL(csPath).href);
  for (const fn of ['startCodeServer', 'launchBrowser', 'openWorkbench']) {
    if (typeof cs[fn] !== 'function') return { unavailable: `scripts/harness/code-server.mjs does not export ${fn}()` };
  }
  const pkg = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const id = `${pkg.publisher}.${pkg.name}`;
  const displayName = pkg.displayName || id;
  const notes = [];

  const tmp = mkdtempSync(join(tmpdir(), 'checkpoint-bench-vsc-'));
  let server;
  let browser;
  const deadline = Date.now() + budgetMs;
  try {
    const ext = join(tmp, 'extension');
    mkdirSync(ext, { recursive: true });
    for (const f of EXTENSION_FILES) if (existsSync(join(root, f))) cpSync(join(root, f), join(ext, f), { recursive: true });
    cpSync(bundleDist, join(ext, 'dist'), { recursive: true });
    const staged = JSON.parse(readFileSync(join(ext, 'package.json'), 'utf8'));
    const events = staged.activationEvents ?? [];
    const kept = events.filter((e) => e !== 'onStartupFinished' && e !== '*');
    if (kept.length !== events.length) {
      notes.push(`The shipped manifest activates on ${events.filter((e) => !kept.includes(e)).join(', ')}; the bench's staged copy drops that so activation can be timed on demand (same code).`);
    }
    staged.activationEvents = kept;
    writeFileSync(join(ext, 'package.json'), JSON.stringify(staged, null, 2));

    const probe = join(tmp, 'probe');
    writeExtension(probe, { name: 'checkpoint-bench-probe', displayName: PROBE_NAME, activationEvents: ['onStartupFinished'] }, PROBE_JS);
    const trivialJs = "'use strict';\nrequire('vscode');\nexports.activate = function () {};\nexports.deactivate = function () {};\n";
    const trivial = join(tmp, 'trivial');
    writeExtension(trivial, { name: 'checkpoint-bench-trivial', displayName: TRIVIAL_NAME, activationEvents: [] }, trivialJs);
    const warmUp = join(tmp, 'warm-up');
    writeExtension(warmUp, { name: 'checkpoint-bench-warm-up', displayName: 'zz checkpoint bench warm-up', activationEvents: [] }, trivialJs);
    const workspace = join(tmp, 'workspace');
    mkdirSync(join(workspace, '.claude', 'memory'), { recursive: true });
    writeFileSync(join(workspace, 'README.md'), '# bench workspace\n');
    const probeOut = join(tmp, 'probe.jsonl');
    writeFileSync(probeOut, '');

    log('starting code-server');
    server = await cs.startCodeServer({
      workspace,
      extensionDirs: [ext, probe, trivial, warmUp],
      copyExtensions: true,
      env: { CHECKPOINT_BENCH_TARGET: id, CHECKPOINT_BENCH_PROBE_OUT: probeOut, CHECKPOINT_BENCH_SETTLE_MS: String(SETTLE_MS) },
    });
    browser = await cs.launchBrowser();
    const page = await cs.openWorkbench(browser, server.url, workspace, { viewport: { width: 1400, height: 2400 } });
    const probeLines = () => readFileSync(probeOut, 'utf8').split('\n').filter(Boolean).map((l) => JSON.parse(l));

    const result = { vscode: [], floor: [], notes };
    for (let i = 0; i < runs + 1 && Date.now() < deadline; i++) {
      if (i > 0) {
        await page.reload();
        await page.waitForSelector('.monaco-workbench .part.statusbar', { timeout: 60_000 });
      }
      const rec = await waitFor(() => probeLines()[i], 60_000, 'the probe extension');
      if (!rec.found) throw new Error(`extension ${id} is not installed in code-server`);
      if (rec.error) throw new Error(`activate() failed in VS Code: ${rec.error}`);
      if (rec.wasActive) throw new Error(`${id} was already active before the probe activated it (an activation event fired at startup)`);
      await page.keyboard.press('F1');
      await page.waitForSelector('.quick-input-widget input', { state: 'visible', timeout: 20_000 });
      await page.keyboard.type('Developer: Show Running Extensions');
      await page.waitForSelector('.quick-input-widget .monaco-list-row', { timeout: 20_000 });
      await delay(200);
      await page.keyboard.press('Enter');
      const times = await readActivationTimes(page, [displayName, TRIVIAL_NAME]).catch(async (err) => {
        if (process.env.CHECKPOINT_BENCH_SCREENSHOT) await page.screenshot({ path: process.env.CHECKPOINT_BENCH_SCREENSHOT }).catch(() => {});
        throw new Error(`${err.message} (probe: ${JSON.stringify(rec)})`);
      });
      result.vscodeVersion = rec.vscodeVersion;
      // The first window is the warm-up (code-server's first extension host also primes the disk cache).
      if (i === 0) continue;
      result.vscode.push(times[displayName]);
      result.floor.push(times[TRIVIAL_NAME]);
      log(`  run ${i}: ${times[displayName]} ms (trivial extension: ${times[TRIVIAL_NAME]} ms; ${rec.order})`);
    }
    if (result.vscode.length < runs) notes.push(`only ${result.vscode.length} of ${runs} VS Code runs fitted in the time limit`);
    return result;
  } finally {
    await browser?.close().catch(() => {});
    await server?.stop().catch(() => {});
    rmSync(tmp, { recursive: true, force: true });
  }
}
