// Runs the real Claude Code client (installed on demand by scripts/harness/claude-code.mjs) far enough to see what it
// loads into a session, with no network: `claude -p continue` in a folder with a private HOME starts a session,
// runs the SessionStart hooks and writes its transcript (`<config dir>/projects/<slug>/<session>.jsonl`) before
// its first model call fails. The transcript records the context it assembled:
// - an `instructions` attachment whose `files` include `{ type: "AutoMem", path, content }`: the MEMORY.md it
//   loaded (as much of it as it loaded) and from which folder;
// - a `hook_additional_context` attachment per hook event with the hooks' `additionalContext`;
// - the system prompt (an `api-request-shape` line), which names the memory folder the agent writes to.
// Once the first model request is in the transcript the context is complete; the process is then stopped (it
// would retry the network for minutes otherwise).
import { execFile, execFileSync, spawn, type SpawnOptionsWithStdioTuple } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import * as path from 'node:path';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const INSTALLER = path.join(ROOT, 'scripts', 'harness', 'claude-code.mjs');
/** The first install downloads ~370 MB. */
const INSTALL_TIMEOUT = 15 * 60_000;
/** Start-up to first model request: ~1 s on an idle machine; generous for a loaded CI machine. */
const SESSION_TIMEOUT = 90_000;

export interface ClaudeCodeInstall {
  bin: string;
  version: string;
}

let install: Promise<ClaudeCodeInstall> | undefined;

/** The pinned client, installed into .cache/claude-code on first use (a few stat calls after that). */
export function claudeCode(): Promise<ClaudeCodeInstall> {
  install ??= new Promise<ClaudeCodeInstall>((resolve, reject) => {
    execFile(process.execPath, [INSTALLER, '--quiet'], { encoding: 'utf8', timeout: INSTALL_TIMEOUT, cwd: ROOT }, (err, out, errOut) => {
      if (err) reject(new Error(`Installing Claude Code failed: ${errOut || err.message}`));
      else resolve(JSON.parse(out) as ClaudeCodeInstall);
    });
  }).catch((err: unknown) => {
    install = undefined; // a failed install is retried by the next caller
    throw err;
  });
  return install;
}

export interface LoadedFile {
  path: string;
  content: string;
}

export interface ClaudeSession {
  /** The auto-memory MEMORY.md files the client put into the session (`type: AutoMem`), as loaded. */
  memory: LoadedFile[];
  /** Every `instructions` file (CLAUDE.md, AutoMem, …) with its type. */
  instructions: (LoadedFile & { type: string })[];
  /** The `additionalContext` strings of the hooks that ran, in order. */
  hookContexts: string[];
  /** The memory folder the system prompt tells the agent to use, when it names one. */
  memoryDir?: string;
  /** The transcript file (removed with the test's temp folders). */
  transcript: string;
  /** What the process printed (for failure messages). */
  output: string;
}

export interface ClaudeRunOptions {
  /** The folder the session starts in. */
  cwd: string;
  /** A private HOME (a temp folder): the real home folder is never used. */
  home: string;
  /** CLAUDE_CONFIG_DIR for the client; default `<home>/.claude`. */
  configDir?: string;
  /** More environment for the client (and so for its hooks). */
  env?: NodeJS.ProcessEnv;
  /** More arguments for `claude -p continue` (e.g. `--plugin-dir`). */
  args?: string[];
  timeoutMs?: number;
}

let netns: boolean | undefined;
/** Whether `unshare -n` can give the client a network namespace with no interface up (root on Linux). */
function canUnshareNetwork(): boolean {
  if (netns === undefined) {
    try {
      execFileSync('unshare', ['-n', 'true'], { stdio: 'ignore', timeout: 10_000 });
      netns = true;
    } catch {
      netns = false;
    }
  }
  return netns;
}

interface TranscriptLine {
  type?: string;
  subtype?: string;
  attachment?: { type?: string; files?: { type?: string; path?: string; content?: string }[]; content?: unknown };
  shape?: { system?: { text?: string }[] };
}

function readTranscript(file: string): TranscriptLine[] {
  const lines: TranscriptLine[] = [];
  const text = readFileSync(file, 'utf8');
  // The last line may still be being written: only complete lines count.
  for (const line of text.slice(0, text.lastIndexOf('\n') + 1).split('\n')) {
    if (!line) continue;
    try {
      lines.push(JSON.parse(line) as TranscriptLine);
    } catch {
      /* not a JSON line */
    }
  }
  return lines;
}

/** The transcript of `session` under `<config dir>/projects/*` (the folder is the slug of the start folder). */
function findTranscript(configDir: string, session: string): string | undefined {
  const projects = path.join(configDir, 'projects');
  if (!existsSync(projects)) return undefined;
  for (const p of readdirSync(projects)) {
    const f = path.join(projects, p, `${session}.jsonl`);
    if (existsSync(f)) return f;
  }
  return undefined;
}

const requestMade = (l: TranscriptLine): boolean => l.type === 'api-request' || (l.type === 'system' && l.subtype === 'api_error');

// The system prompt's memory section: "You have a persistent file-based memory at `<dir>`." (2.1.x wording).
const MEMORY_DIR_RE = /persistent file-based memory at `([^`\n]+)`/;

function parseSession(lines: TranscriptLine[], transcript: string, output: string): ClaudeSession {
  const instructions: ClaudeSession['instructions'] = [];
  const hookContexts: string[] = [];
  let memoryDir: string | undefined;
  for (const l of lines) {
    const a = l.attachment;
    if (l.type === 'attachment' && a?.type === 'instructions') {
      for (const f of a.files ?? []) instructions.push({ type: String(f.type), path: String(f.path), content: String(f.content ?? '') });
    } else if (l.type === 'attachment' && a?.type === 'hook_additional_context') {
      const c = a.content;
      hookContexts.push(...(Array.isArray(c) ? c.map(String) : [String(c)]));
    } else if (l.type === 'api-request-shape' && memoryDir === undefined) {
      for (const s of l.shape?.system ?? []) memoryDir ??= MEMORY_DIR_RE.exec(s.text ?? '')?.[1];
    }
  }
  const memory = instructions.filter((f) => f.type === 'AutoMem').map(({ path: p, content }) => ({ path: p, content }));
  return { memory, instructions, hookContexts, memoryDir, transcript, output };
}

/** The client's environment: a private HOME, a dummy API key, model requests to a closed port. */
function clientEnv(opts: Omit<ClaudeRunOptions, 'args'>): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: opts.home,
    ...(opts.configDir ? { CLAUDE_CONFIG_DIR: opts.configDir } : {}),
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
    // Model requests go to a closed port on loopback (inside an empty network namespace when possible).
    ANTHROPIC_BASE_URL: 'http://127.0.0.1:9',
    CLAUDE_CODE_DISABLE_NONESSENTIAL_TRAFFIC: '1',
    DISABLE_AUTOUPDATER: '1',
    DISABLE_TELEMETRY: '1',
    DISABLE_ERROR_REPORTING: '1',
    ...opts.env,
  };
}

/** `claude <args>` (e.g. `plugin validate`, `plugin install`) with a private HOME and no network (but loopback when asked): exit code and output. */
export async function claudeCommand(
  args: string[],
  opts: Omit<ClaudeRunOptions, 'args'> & { /** Loopback reachable (a local registry): no empty network namespace. */ loopback?: boolean },
): Promise<{ code: number; output: string }> {
  const { bin } = await claudeCode();
  const [cmd, cmdArgs] = canUnshareNetwork() && !opts.loopback ? ['unshare', ['-n', '--', bin, ...args]] : [bin, args];
  return new Promise((resolve) => {
    execFile(cmd, cmdArgs, { cwd: opts.cwd, env: clientEnv(opts), encoding: 'utf8', timeout: opts.timeoutMs ?? SESSION_TIMEOUT }, (err, out, errOut) => {
      const code = err ? (typeof (err as { code?: unknown }).code === 'number' ? ((err as { code: number }).code) : 1) : 0;
      resolve({ code, output: `${out}${errOut}` });
    });
  });
}

/**
 * Starts `claude -p continue` in `cwd` with a private HOME, a dummy API key and no network, waits until its
 * transcript shows the first model request (the session's context is complete then), stops it, and returns
 * what it loaded. Rejects with the client's output when no such transcript appears in time.
 */
export async function runClaude(opts: ClaudeRunOptions): Promise<ClaudeSession> {
  const { bin } = await claudeCode();
  const configDir = opts.configDir ?? path.join(opts.home, '.claude');
  const session = randomUUID();
  const env = clientEnv(opts);
  const args = ['-p', 'continue', '--session-id', session, ...(opts.args ?? [])];
  const timeout = opts.timeoutMs ?? SESSION_TIMEOUT;
  // Its own process group, so stopping it also stops the hooks it started.
  const spawnOpts: SpawnOptionsWithStdioTuple<'ignore', 'pipe', 'pipe'> = {
    cwd: opts.cwd, env, stdio: ['ignore', 'pipe', 'pipe'], detached: true, timeout: timeout + 10_000, killSignal: 'SIGKILL',
  };
  const child = canUnshareNetwork() ? spawn('unshare', ['-n', '--', bin, ...args], spawnOpts) : spawn(bin, args, spawnOpts);
  const stop = (signal: NodeJS.Signals): void => {
    try {
      if (child.pid) process.kill(-child.pid, signal);
    } catch {
      /* already gone */
    }
  };
  let output = '';
  const keep = (d: Buffer): void => {
    if (output.length < 64 * 1024) output += d.toString('utf8');
  };
  child.stdout.on('data', keep);
  child.stderr.on('data', keep);
  let exited = false;
  const closed = new Promise<void>((resolve) => {
    child.once('close', () => {
      exited = true;
      resolve();
    });
    child.once('error', (err) => {
      output += `\n${err.message}`;
      exited = true;
      resolve();
    });
  });

  const deadline = Date.now() + timeout;
  let transcript: string | undefined;
  let lines: TranscriptLine[] = [];
  let complete: string | undefined;
  try {
    for (;;) {
      transcript ??= findTranscript(configDir, session);
      if (transcript) lines = readTranscript(transcript);
      if (transcript && lines.some(requestMade)) {
        complete = transcript;
        break;
      }
      if (exited || Date.now() > deadline) {
        const seen = lines.map((l) => (l.type === 'attachment' ? `attachment:${l.attachment?.type}` : l.type)).join(', ');
        throw new Error(
          `Claude Code ${exited ? 'exited' : `ran ${timeout} ms`} without reaching its first model request in ${opts.cwd}` +
            ` (transcript: ${transcript ?? 'none'}${seen ? `; lines: ${seen}` : ''}).\nOutput:\n${output.slice(-4000)}`,
        );
      }
      await new Promise((r) => setTimeout(r, 100));
    }
  } finally {
    if (!exited) {
      stop('SIGTERM');
      const force = setTimeout(() => stop('SIGKILL'), 3000);
      await closed;
      clearTimeout(force);
    }
  }
  return parseSession(readTranscript(complete), complete, output);
}
