// Runs the real Claude Code client (installed on demand by scripts/harness/claude-code.mjs) for whole sessions,
// offline, against a scripted model on 127.0.0.1 (test/support/scriptedModel.ts): the client's whole loop runs —
// hooks, skills, tools, MCP servers, compaction — and the tests assert on what reached the model, the requests the
// client sent.
// - {@link runSession}: one `claude -p <prompt> …` run to its end against a given scripted model; its requests and
//   the session id.
// - {@link runClaude}: a new session with the prompt `continue` against a model that answers "OK.", read as what
//   the session started with (the MEMORY.md files and CLAUDE.md the client loaded, the SessionStart hooks'
//   context, the memory folder its system prompt names).
// - {@link claudeCommand}: other `claude` commands (`plugin validate`, `plugin install`) with no network.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { randomUUID } from 'node:crypto';
import * as path from 'node:path';
import { scriptedModel, systemText, type ModelRequest, type ScriptedModel } from './scriptedModel';

const ROOT = path.resolve(__dirname, '..', '..', '..');
const INSTALLER = path.join(ROOT, 'scripts', 'harness', 'claude-code.mjs');
/** The first install downloads ~370 MB. */
const INSTALL_TIMEOUT = 15 * 60_000;
/** A whole `-p` session: ~1-3 s on an idle machine; generous for a loaded CI machine. */
const SESSION_TIMEOUT = 120_000;

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

export interface ClaudeRunOptions {
  /** The folder the session starts in. */
  cwd: string;
  /** A private HOME (a temp folder): the real home folder is never used. */
  home: string;
  /** CLAUDE_CONFIG_DIR for the client; default `<home>/.claude`. */
  configDir?: string;
  /** More environment for the client (and so for its hooks). */
  env?: NodeJS.ProcessEnv;
  /** More arguments after the prompt (e.g. `--plugin-dir`, `--resume <id>`, `--allowedTools Bash`). */
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

/** The client's environment: a private HOME, a dummy API key, model requests to `baseUrl` (default: a closed port). */
function clientEnv(opts: Omit<ClaudeRunOptions, 'args'>, baseUrl = 'http://127.0.0.1:9'): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH,
    LANG: 'C.UTF-8',
    HOME: opts.home,
    ...(opts.configDir ? { CLAUDE_CONFIG_DIR: opts.configDir } : {}),
    ANTHROPIC_API_KEY: 'sk-ant-test-not-a-key',
    ANTHROPIC_BASE_URL: baseUrl,
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

export interface SessionRun {
  /** The client's exit code. */
  code: number;
  /** The session's id (`--output-format json`'s `session_id`): a fork's or a compaction's own. */
  sessionId: string;
  /** The model's last text, as the client printed it. */
  result: string;
  /** The Messages requests the client sent during this run, in order. */
  requests: ModelRequest[];
  /** What the client printed (for failure messages). */
  output: string;
}

/**
 * Runs `claude -p <prompt> --output-format json <args>` in `cwd` to its end against `model` (a private HOME, a
 * dummy API key, ANTHROPIC_BASE_URL the model's), and returns what it sent the model. Rejects, with the client's
 * output, when it does not finish in time or prints no result.
 * A new session gets a fresh `--session-id` unless `args` resume one.
 */
export async function runSession(opts: ClaudeRunOptions & { model: ScriptedModel; prompt: string }): Promise<SessionRun> {
  const { bin } = await claudeCode();
  const extra = opts.args ?? [];
  const resumes = extra.includes('--resume') || extra.includes('--continue');
  const args = ['-p', opts.prompt, '--output-format', 'json', ...(resumes ? [] : ['--session-id', randomUUID()]), ...extra];
  const timeout = opts.timeoutMs ?? SESSION_TIMEOUT;
  const first = opts.model.requests.length;
  // Its own process group, so that a run past its time is stopped with the hooks it started.
  const child = spawn(bin, args, { cwd: opts.cwd, env: clientEnv(opts, opts.model.url), stdio: ['ignore', 'pipe', 'pipe'], detached: true });
  let out = '';
  let err = '';
  child.stdout.on('data', (d: Buffer) => (out += d.toString('utf8')));
  child.stderr.on('data', (d: Buffer) => {
    if (err.length < 64 * 1024) err += d.toString('utf8');
  });
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    try {
      if (child.pid) process.kill(-child.pid, 'SIGKILL');
    } catch {
      /* already gone */
    }
  }, timeout);
  const code = await new Promise<number>((resolve) => {
    child.once('error', (e) => {
      err += `\n${e.message}`;
      resolve(-1);
    });
    child.once('close', (c) => resolve(c ?? -1));
  }).finally(() => clearTimeout(timer));
  const output = `${out}${err}`;
  const requests = opts.model.requests.slice(first);
  const fail = (why: string): Error =>
    new Error(`claude ${args.map((a) => JSON.stringify(a)).join(' ')} in ${opts.cwd} ${why} after ${requests.length} model requests.\nOutput:\n${output.slice(-4000)}`);
  if (timedOut) throw fail(`ran past ${timeout} ms`);
  let parsed: { session_id?: unknown; result?: unknown } | undefined;
  try {
    parsed = JSON.parse(out.trim().split('\n').pop() ?? '') as typeof parsed;
  } catch {
    parsed = undefined;
  }
  if (typeof parsed?.session_id !== 'string') throw fail(`exited ${code} with no result`);
  return { code, sessionId: parsed.session_id, result: typeof parsed.result === 'string' ? parsed.result : '', requests, output };
}

export interface ClaudeSession {
  /** The auto-memory MEMORY.md files in what reached the model, as loaded. */
  memory: LoadedFile[];
  /** Every instructions file in what reached the model (CLAUDE.md, MEMORY.md, …), with the client's description of it. */
  instructions: (LoadedFile & { kind: string })[];
  /** The SessionStart hooks' context in what reached the model (several hooks' and starts' joined by newlines), '' when none. */
  hookContext: string;
  /** The memory folder the system prompt tells the agent to use, when it names one. */
  memoryDir?: string;
  /** The session's first request. */
  request: ModelRequest;
  /** What the process printed (for failure messages). */
  output: string;
}

const INSTRUCTIONS_HEAD = 'Codebase and user instructions are shown below.';
const AUTO_MEMORY = "user's auto-memory";
const HOOK_CONTEXT = 'SessionStart hook additional context: ';
// The system prompt's memory section: "You have a persistent file-based memory at `<dir>`." (2.1.x wording).
const MEMORY_DIR_RE = /persistent file-based memory at `([^`\n]+)`/;
// "Contents of <path> (<description>):" then a blank line, in the instructions reminder.
const FILE_HEAD_RE = /(?:^|\n\n)Contents of ([^\n]+) \(([^()\n]*)\):\n\n/g;

const texts = (req: ModelRequest): string[] =>
  req.messages.flatMap((m) => (typeof m.content === 'string' ? [m.content] : m.content.flatMap((b) => (b.type === 'text' && typeof b.text === 'string' ? [b.text] : []))));

/** The instructions files of a request's system reminder: `Contents of <path> (<description>):`, then the file. */
function instructionsOf(req: ModelRequest): ClaudeSession['instructions'] {
  const reminder = texts(req).find((t) => t.includes(INSTRUCTIONS_HEAD));
  if (!reminder) return [];
  const body = reminder.replace(/\n?<\/system-reminder>\s*$/, '\n');
  const heads = [...body.matchAll(FILE_HEAD_RE)];
  return heads.map((m, i) => {
    const from = (m.index ?? 0) + m[0].length;
    const to = i + 1 < heads.length ? (heads[i + 1].index ?? body.length) : body.length;
    return { path: m[1], kind: m[2], content: body.slice(from, to).replace(/\n+$/, '\n') };
  });
}

/**
 * The SessionStart hooks' context in a request (in the system text or a system message, each up to its blank line),
 * joined by newlines: a resumed session's request carries its earlier starts' too.
 */
function hookContextOf(req: ModelRequest): string {
  const found: string[] = [];
  for (const t of [systemText(req), ...texts(req)]) {
    for (let at = t.indexOf(HOOK_CONTEXT); at >= 0; at = t.indexOf(HOOK_CONTEXT, at + 1)) {
      const rest = t.slice(at + HOOK_CONTEXT.length);
      const end = rest.indexOf('\n\n');
      found.push(end < 0 ? rest : rest.slice(0, end));
    }
  }
  return found.join('\n');
}

/** What a session started with, read from its first request. */
export function sessionOf(req: ModelRequest, output = ''): ClaudeSession {
  const instructions = instructionsOf(req);
  const memory = instructions.filter((f) => f.kind.startsWith(AUTO_MEMORY)).map(({ path: p, content }) => ({ path: p, content }));
  let memoryDir: string | undefined;
  for (const t of [systemText(req), ...texts(req)]) memoryDir ??= MEMORY_DIR_RE.exec(t)?.[1];
  return { memory, instructions, hookContext: hookContextOf(req), memoryDir: memoryDir?.replace(/\/$/, ''), request: req, output };
}

/**
 * A new session, `claude -p continue`, in `cwd` against a model that answers "OK.": what it started with (its
 * first request to the model).
 */
export async function runClaude(opts: ClaudeRunOptions): Promise<ClaudeSession> {
  const model = await scriptedModel();
  try {
    const run = await runSession({ ...opts, model, prompt: 'continue' });
    const [req] = run.requests;
    if (!req) throw new Error(`Claude Code sent no request to the model in ${opts.cwd}.\nOutput:\n${run.output.slice(-4000)}`);
    return sessionOf(req, run.output);
  } finally {
    await model.close();
  }
}

/** The Claude Code plugin as a user gets it, made from the built CLI (`node scripts/build.mjs`) into `out`: its folder and zip. */
export function packagePlugin(out: string): { dir: string; zip: string } {
  const dir = path.join(out, 'checkpoint');
  const zip = path.join(out, 'checkpoint-plugin.zip');
  execFileSync(process.execPath, [path.join(ROOT, 'scripts', 'package-plugin.mjs'), '--no-build', '--dir', dir, '-o', zip], { timeout: 120_000 });
  return { dir, zip };
}
