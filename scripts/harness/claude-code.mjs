// Installs the real Claude Code client, pinned, into <repo>/.cache/claude-code (git-ignored) for the suite that
// checks what Claude Code loads (test/claude). Not a dependency of the extension. The registry package
// @anthropic-ai/claude-code ships its native binary in a platform package (an optionalDependency, e.g.
// @anthropic-ai/claude-code-linux-x64); that binary is used directly, so the wrapper's postinstall (which only
// copies it over a placeholder) is not run. A marker file with the pinned version makes a second run a few stat
// calls. Installer output goes to .cache/install.log.
// Usage: node scripts/harness/claude-code.mjs [--quiet] [--verbose]   (prints { "bin", "version" } as JSON)
import { spawnSync } from 'node:child_process';
import { appendFileSync, existsSync, mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { cacheDir, installLog, run, withInstallLock } from './vscode-env.mjs';

export const CLAUDE_CODE_VERSION = '2.1.328';
const PACKAGE = '@anthropic-ai/claude-code';
const dir = join(cacheDir, 'claude-code');
const scope = join(dir, 'node_modules', '@anthropic-ai');
const markerFile = join(dir, '.installed.json');

function readMarker() {
  try {
    return JSON.parse(readFileSync(markerFile, 'utf8'));
  } catch {
    return null;
  }
}

// `claude --version` prints "2.1.328 (Claude Code)".
function versionOf(bin) {
  const r = spawnSync(bin, ['--version'], { encoding: 'utf8', timeout: 60_000, env: { PATH: process.env.PATH, HOME: dir } });
  return /^(\S+)/.exec(r.stdout ?? '')?.[1];
}

// npm installs only the optional platform package that matches this machine (os, cpu, libc).
function platformBinary() {
  const pkgs = existsSync(scope) ? readdirSync(scope).filter((n) => n.startsWith('claude-code-')) : [];
  if (pkgs.length !== 1) {
    throw new Error(
      `Expected one platform package of ${PACKAGE} for ${process.platform}-${process.arch}, found ${pkgs.length ? pkgs.join(', ') : 'none'} in ${scope}`,
    );
  }
  const bin = join(scope, pkgs[0], process.platform === 'win32' ? 'claude.exe' : 'claude');
  if (!existsSync(bin)) throw new Error(`${PACKAGE}/${pkgs[0]} has no ${bin}`);
  return bin;
}

/**
 * Makes sure Claude Code CLAUDE_CODE_VERSION is installed in .cache/claude-code (installing it on first use).
 * @param {{ quiet?: boolean, verbose?: boolean }} [opts]
 * @returns {Promise<{ bin: string, version: string }>} the native binary's absolute path
 */
export async function ensureClaudeCode({ quiet = false, verbose = false } = {}) {
  const log = quiet ? () => {} : (m) => process.stderr.write(`[claude-code] ${m}\n`);
  const ready = () => {
    const m = readMarker();
    return m?.version === CLAUDE_CODE_VERSION && typeof m.bin === 'string' && existsSync(join(dir, m.bin)) ? join(dir, m.bin) : undefined;
  };
  const have = ready();
  if (have) return { bin: have, version: CLAUDE_CODE_VERSION };

  mkdirSync(cacheDir, { recursive: true });
  return withInstallLock(
    log,
    async () => {
      const again = ready(); // installed by the process we waited for
      if (again) return { bin: again, version: CLAUDE_CODE_VERSION };
      appendFileSync(installLog, `\nensureClaudeCode ${new Date().toISOString()}\n`);
      log(`Installing Claude Code ${CLAUDE_CODE_VERSION} from npm (${PACKAGE}, ~370 MB; log: ${installLog})…`);
      const started = Date.now();
      rmSync(dir, { recursive: true, force: true });
      mkdirSync(dir, { recursive: true });
      writeFileSync(
        join(dir, 'package.json'),
        JSON.stringify({ name: 'checkpoint-cache-claude-code', private: true, dependencies: { [PACKAGE]: CLAUDE_CODE_VERSION } }, null, 2),
      );
      // Under `npm test` the outer npm's settings (npm_config_*) would leak into this install: drop them.
      const env = Object.fromEntries(Object.entries(process.env).filter(([k]) => !/^npm_/i.test(k)));
      await run(
        'npm',
        ['install', '--no-package-lock', '--ignore-scripts', '--include=optional', '--no-audit', '--no-fund', '--no-update-notifier'],
        { cwd: dir, env, verbose },
      );
      const bin = platformBinary();
      const version = versionOf(bin);
      if (version !== CLAUDE_CODE_VERSION) throw new Error(`${bin} --version gave ${version ?? 'nothing'}, expected ${CLAUDE_CODE_VERSION}`);
      writeFileSync(markerFile, JSON.stringify({ version, bin: bin.slice(dir.length + 1) }, null, 2) + '\n');
      log(`Claude Code ${version} installed in ${Math.round((Date.now() - started) / 1000)} s`);
      return { bin, version };
    },
    { what: 'Claude Code', lockName: '.install-claude-code.lock' },
  );
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  ensureClaudeCode({ quiet: process.argv.includes('--quiet'), verbose: process.argv.includes('--verbose') }).then(
    (r) => console.log(JSON.stringify(r)),
    (err) => {
      console.error(`[claude-code] Could not install Claude Code ${CLAUDE_CODE_VERSION}: ${err.message}`);
      process.exit(1);
    },
  );
}
