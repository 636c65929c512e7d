// `npm run test:e2e`: end-to-end flows in a real VS Code (code-server on 127.0.0.1) driven through Debian's
// chromium with playwright-core, as a person would (command palette, quick inputs, tree clicks, status bar).
// Each flow gets a fresh server and a fresh demo workspace; one browser is shared (a new context per flow).
// Screenshots go to docs/images/<flow>.png; on failure a screenshot and the extension's logs go to
// test-results/e2e/. Ends with the line "N passed, N failed"; exits 1 when any flow failed.
//
// Usage: node scripts/harness/e2e.mjs [--only TEXT[,TEXT]] [--keep] [--verbose] [--flow-timeout MS]
//   --only          run the flows whose name or slug contains one of the texts
//   --keep          keep the temp folders (workspaces, server user-data) and print where they are
//   --verbose       echo code-server's output
//   --flow-timeout  limit per flow (default 120000)
import { execFileSync } from 'node:child_process';
import { cpSync, existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { ensureVSCodeEnv } from './vscode-env.mjs';
import { findFiles, launchBrowser, openWorkbench, registerCleanup, stageRepoExtension, startCodeServer } from './code-server.mjs';
import { createDemoWorkspace } from '../demo.mjs';
import { flows } from '../../test/e2e/flows.mjs';
import { Workbench } from '../../test/e2e/workbench.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..', '..');
const imagesDir = join(root, 'docs', 'images');
const resultsDir = join(root, 'test-results', 'e2e');

const { values: opts } = parseArgs({
  options: {
    only: { type: 'string' },
    keep: { type: 'boolean', default: false },
    verbose: { type: 'boolean', default: false },
    'flow-timeout': { type: 'string', default: '120000' },
  },
});
const flowTimeout = Number(opts['flow-timeout']);


function withTimeout(promise, ms, what) {
  let timer;
  return Promise.race([
    promise,
    new Promise((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what} took longer than ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}

/** Keeps what explains a failure: a screenshot, the extension's log and the extension host log. */
async function saveFailureArtifacts(slug, page, server) {
  mkdirSync(resultsDir, { recursive: true });
  const saved = [];
  if (page) {
    const shot = join(resultsDir, `${slug}-failure.png`);
    if (await page.screenshot({ path: shot }).then(() => true, () => false)) saved.push(shot);
  }
  if (server) {
    const logs = [
      ...findFiles(join(server.userDataDir, 'logs'), /^(\d+-)?Checkpoint\.log$/),
      ...server.exthostLogs(),
    ];
    for (const [i, log] of logs.entries()) {
      const dest = join(resultsDir, `${slug}-${i}-${basename(log)}`);
      try {
        cpSync(log, dest);
        saved.push(dest);
      } catch {
        /* best effort */
      }
    }
  }
  return saved.map((p) => relative(root, p));
}

async function runFlow(flow, { browser, extensionDir, vsixFile, temp }) {
  const dir = mkdtempSync(join(temp, `${flow.slug}-`));
  // The workspace lives under the server's HOME, so the extension shows its paths as ~/projects/demo/…
  // (shorter, and the same in every screenshot) instead of a random temp path.
  const home = join(dir, 'home');
  const workspace = createDemoWorkspace(join(home, 'projects', 'demo'), { checkpoints: flow.checkpoints !== false });
  const memoryDir = join(workspace, '.claude', 'memory');
  let server;
  let page;
  try {
    server = await startCodeServer({
      workspace,
      // A flow marked `vsix` gets the packaged .vsix installed as a user installs it, instead of the repository's files.
      extensionDirs: flow.vsix ? [] : [extensionDir],
      vsixFiles: flow.vsix ? [vsixFile] : [],
      copyExtensions: true,
      verbose: opts.verbose,
      keepTemp: opts.keep,
      env: { HOME: home },
      userSettings: {
        // The demo and the flows rely on no other prompt showing up.
        'git.openRepositoryInParentFolders': 'never',
        'workbench.tips.enabled': false,
        'workbench.welcomePage.walkthroughs.openOnInstall': false,
        // The demo's checkpoints were saved outside the window: only the flow about the start-up offer wants it.
        'checkpoint.offerResumeOnOpen': flow.resumeOffer === true,
      },
    });
    page = await openWorkbench(browser, server.url, workspace);
    const wb = new Workbench(page);
    const screenshot = async () => {
      mkdirSync(imagesDir, { recursive: true });
      await wb.screenshot(join(imagesDir, `${flow.slug}.png`));
    };
    await withTimeout(flow.run({ wb, page, workspace, memoryDir, server, screenshot }), flowTimeout, `"${flow.name}"`);
    return { ok: true };
  } catch (err) {
    const artifacts = await saveFailureArtifacts(flow.slug, page, server).catch(() => []);
    return { ok: false, err, artifacts, server };
  } finally {
    await page?.context().close().catch(() => {});
    if (opts.keep && server) console.error(`  (kept: workspace ${workspace}, server ${server.tempDir})`);
    await server?.stop();
    if (!opts.keep) rmSync(dir, { recursive: true, force: true, maxRetries: 3 });
  }
}

/**
 * `npm run package` into the temp folder when a selected flow installs the .vsix (`flow.vsix.baseImagesUrl`: where
 * its README's images point), then the development build back into dist/ (packaging leaves a production one).
 */
function packageFor(selected, temp) {
  const flow = selected.find((f) => f.vsix);
  if (!flow) return undefined;
  const vsixFile = join(temp, 'checkpoint.vsix');
  console.log('Packaging the .vsix (npm run package)…');
  const scripts = join(root, 'scripts');
  execFileSync(process.execPath, [join(scripts, 'package.mjs'), '--baseImagesUrl', flow.vsix.baseImagesUrl, '--out', vsixFile], { cwd: root, stdio: ['ignore', 'ignore', 'inherit'] });
  execFileSync(process.execPath, [join(scripts, 'build.mjs'), '--no-typecheck'], { cwd: root, stdio: 'inherit' });
  return vsixFile;
}

async function main() {
  const started = Date.now();
  await ensureVSCodeEnv();
  if (!existsSync(join(root, 'dist', 'extension.js')) || !existsSync(join(root, 'dist', 'cli.js'))) {
    console.log('dist/ is missing: building the extension (node scripts/build.mjs --no-typecheck)…');
    execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs'), '--no-typecheck'], { cwd: root, stdio: 'inherit' });
  }

  const wanted = opts.only?.split(',').map((s) => s.trim().toLowerCase()).filter(Boolean);
  const selected = wanted ? flows.filter((f) => wanted.some((w) => f.name.toLowerCase().includes(w) || f.slug.includes(w))) : flows;
  if (!selected.length) {
    console.error(`No flow matches --only ${opts.only}. Flows: ${flows.map((f) => f.slug).join(', ')}`);
    console.log('0 passed, 1 failed');
    process.exit(1);
  }

  const temp = mkdtempSync(join(tmpdir(), 'checkpoint-e2e-'));
  const removeTemp = () => {
    if (!opts.keep) rmSync(temp, { recursive: true, force: true, maxRetries: 3 });
  };
  registerCleanup({ sync: removeTemp, async: async () => removeTemp() });
  const extensionDir = stageRepoExtension(join(temp, 'extension'));
  const vsixFile = packageFor(selected, temp);
  const browser = await launchBrowser();

  let passed = 0;
  let failed = 0;
  try {
    for (const flow of selected) {
      const t0 = Date.now();
      const r = await runFlow(flow, { browser, extensionDir, vsixFile, temp });
      const secs = ((Date.now() - t0) / 1000).toFixed(1);
      if (r.ok) {
        passed++;
        console.log(`✓ ${flow.name}`);
      } else {
        failed++;
        const reason = (r.err?.message ?? String(r.err)).split('\n')[0];
        console.log(`✗ ${flow.name}: ${reason}`);
        const detail = (r.err?.stack ?? '').split('\n').slice(1, 6).join('\n');
        if (detail) console.error(detail);
        if (r.artifacts?.length) console.error(`  artifacts: ${r.artifacts.join(', ')}`);
      }
      if (opts.verbose) console.error(`  (${secs} s)`);
    }
  } finally {
    await browser.close().catch(() => {});
  }
  console.log(`(${selected.length} flow${selected.length === 1 ? '' : 's'} in ${Math.round((Date.now() - started) / 1000)} s; screenshots in ${relative(root, imagesDir)}/)`);
  console.log(`${passed} passed, ${failed} failed`);
  removeTemp();
  process.exit(failed ? 1 : 0);
}

main().catch((err) => {
  console.error(`e2e: ${err.stack ?? err.message}`);
  console.log('0 passed, 1 failed');
  process.exit(1);
});
