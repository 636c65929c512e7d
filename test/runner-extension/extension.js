// Dev-only test runner: installed next to the extension under test in code-server by
// scripts/harness/run-integration.mjs. On activation it reads the JSON file named by $CHECKPOINT_TEST_CONFIG:
//   { mochaPath, files: [abs .js], resultFile, timeout?, grep?, progressFile?,
//     extensionId? = 'checkpoint-dev.checkpoint-for-agents', requireExtension? = true, extensionWaitMs? = 10000 }
// activates the extension under test, runs the mocha suites in this extension host and writes
//   { passed, failed, pending, failures: [{title, fullTitle, message, stack}], tests: [{fullTitle, state, duration}], error? }
// to resultFile (atomically). Without $CHECKPOINT_TEST_CONFIG it does nothing.
'use strict';
const vscode = require('vscode');
const fs = require('fs');
const path = require('path');

function writeJsonAtomic(file, data) {
  const tmp = `${file}.${process.pid}.tmp`;
  fs.writeFileSync(tmp, JSON.stringify(data, null, 2));
  fs.renameSync(tmp, file);
}

function errorInfo(err) {
  if (err instanceof Error) return { message: err.message, stack: err.stack || '' };
  return { message: String(err), stack: '' };
}

function loadMocha(mochaPath) {
  // Mocha 12's entry is ESM; its CommonJS build lives in lib/mocha.cjs.
  const cjs = path.join(mochaPath, 'lib', 'mocha.cjs');
  const m = require(fs.existsSync(cjs) ? cjs : mochaPath);
  return typeof m === 'function' ? m : m.Mocha || m.default;
}

async function waitForExtension(id, ms) {
  const end = Date.now() + ms;
  for (;;) {
    const ext = vscode.extensions.getExtension(id);
    if (ext || Date.now() > end) return ext;
    await new Promise((r) => setTimeout(r, 100));
  }
}

async function runSuites(config) {
  const started = Date.now();
  const result = { passed: 0, failed: 0, pending: 0, failures: [], tests: [], vscodeVersion: vscode.version };
  const progress = (entry) => {
    if (!config.progressFile) return;
    try {
      fs.appendFileSync(config.progressFile, JSON.stringify(entry) + '\n');
    } catch {
      /* progress is best effort */
    }
  };
  try {
    const id = config.extensionId || 'checkpoint-dev.checkpoint-for-agents';
    // All installed extensions are registered by the time onStartupFinished fires; the wait is a margin.
    const ext = await waitForExtension(id, config.extensionWaitMs ?? 10_000);
    if (ext) await ext.activate();
    else if (config.requireExtension !== false) {
      const hint = vscode.workspace.isTrusted ? '' : ' (the workspace is in Restricted Mode: does it declare capabilities.untrustedWorkspaces?)';
      throw new Error(`Extension ${id} not found in the extension host${hint}`);
    }

    const Mocha = loadMocha(config.mochaPath);
    // A reporter that only collects; mocha calls `new Reporter(runner, options)`.
    function Collector(runner) {
      runner.on('test', (t) => progress({ state: 'running', fullTitle: t.fullTitle() }));
      runner.on('pass', (t) => {
        result.passed++;
        result.tests.push({ fullTitle: t.fullTitle(), state: 'passed', duration: t.duration ?? 0 });
        progress({ state: 'passed', fullTitle: t.fullTitle(), duration: t.duration ?? 0 });
      });
      runner.on('pending', (t) => {
        result.pending++;
        result.tests.push({ fullTitle: t.fullTitle(), state: 'pending', duration: 0 });
        progress({ state: 'pending', fullTitle: t.fullTitle() });
      });
      runner.on('fail', (t, err) => {
        // Also fires for failing hooks (title '"before each" hook for …').
        const e = errorInfo(err);
        result.failed++;
        result.failures.push({ title: t.title, fullTitle: t.fullTitle(), message: e.message, stack: e.stack });
        result.tests.push({ fullTitle: t.fullTitle(), state: 'failed', duration: t.duration ?? 0 });
        progress({ state: 'failed', fullTitle: t.fullTitle(), duration: t.duration ?? 0, message: e.message });
      });
    }
    const mocha = new Mocha({ ui: 'bdd', timeout: config.timeout ?? 20_000, color: false, reporter: Collector });
    if (config.grep) mocha.grep(config.grep);
    for (const f of config.files || []) mocha.addFile(f);
    await new Promise((resolve, reject) => {
      try {
        mocha.run(() => resolve());
      } catch (err) {
        reject(err);
      }
    });
  } catch (err) {
    result.error = errorInfo(err);
  }
  result.durationMs = Date.now() - started;
  return result;
}

let started = false;

function activate() {
  const configPath = process.env.CHECKPOINT_TEST_CONFIG;
  if (!configPath || started) return;
  started = true;
  let config;
  try {
    config = JSON.parse(fs.readFileSync(configPath, 'utf8'));
  } catch (err) {
    // Without a config there is no result file to write to; leave a note next to the config.
    try {
      writeJsonAtomic(`${configPath}.error.json`, { error: errorInfo(err) });
    } catch {
      /* nothing more to do */
    }
    return;
  }
  // Only one extension host runs the suites, even if several windows are open.
  try {
    fs.closeSync(fs.openSync(`${config.resultFile}.lock`, 'wx'));
  } catch {
    return;
  }
  // Don't hold up activation: run after it returns.
  setTimeout(() => {
    runSuites(config).then(
      (result) => writeJsonAtomic(config.resultFile, result),
      (err) => writeJsonAtomic(config.resultFile, { passed: 0, failed: 0, pending: 0, failures: [], tests: [], error: errorInfo(err) }),
    );
  }, 0);
}

function deactivate() {}

module.exports = { activate, deactivate };
