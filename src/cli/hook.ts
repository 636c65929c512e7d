import { errorMessage } from '../core/errors';
import { agentLine } from '../core/escaping';
import { autoSave, saveCompactSummary } from '../core/autoSave';
import { HOOK_EVENTS, HOOK_INPUT_MAX_BYTES, HOOK_TIMEOUT_MS, hookFolder, isHookEvent, parseHookInput } from '../core/hooks';
import { sessionStartContext, sessionStartOutput } from '../core/sessionStartContext';
import { firstToAnswer } from '../core/sessionStartMarker';
import { threadPoolReads } from '../core/reads';
import { recordSessionStart } from '../core/sessionStarts';
import { defineCommand, type Io } from './command';

/** Reads stdin up to `max` bytes (more is not hook input: nothing); a terminal gives nothing. */
function readStdin(max: number): Promise<string> {
  if (process.stdin.isTTY) return Promise.resolve('');
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    process.stdin.on('data', (d: Buffer) => {
      size += d.length;
      if (size <= max) chunks.push(d);
    });
    process.stdin.on('end', () => resolve(size <= max ? Buffer.concat(chunks).toString('utf8') : ''));
    process.stdin.on('error', () => resolve(''));
  });
}

const events = Object.keys(HOOK_EVENTS).join(', ');

/**
 * `checkpoint hook <event>` for Claude Code hooks. It never fails the agent: every problem goes to stderr as one
 * line and the exit code is 0 (exit 2 would block PreCompact); after {@link HOOK_TIMEOUT_MS} it gives up. Stdout
 * carries only what Claude Code documents for the event: SessionStart's JSON with additionalContext, else nothing.
 */
export const hookCommand = defineCommand({
  synopsis: 'hook <event>',
  summary: `for Claude Code hooks (${events}): reads the hook's JSON on stdin`,
  help: `Usage: checkpoint hook <event> [options]

For Claude Code hooks: reads the hook's JSON from stdin (session_id, cwd, transcript_path, …). It never fails
the agent: problems go to stderr and the exit code is 0; it gives up after ${HOOK_TIMEOUT_MS / 1000} s.
  session-start   prints the pending checkpoint as SessionStart's additionalContext (nothing when none)
  pre-compact     saves auto-<YYYY-MM-DD-HHMM>: branch, modified files, the last user message as Left Off;
                  one per session per 2 minutes; the session's older automatic ones go to the trash
  post-compact    the compaction's summary (compact_summary) becomes that checkpoint's Left Off, with the
                  active plan and the modified files; without a summary it keeps what it has
  session-end     the same as pre-compact, when git reports modified files`,
  example: 'checkpoint hook pre-compact',
  exampleWhere: 'a hook command in .claude/settings.json',
  options: {},
  positionals: 1,
  neverFails: true,
  // Its time limit holds on a file system that hangs: reads wait in the thread pool, not in the event loop.
  reads: threadPoolReads,
  async run(ctx) {
    const event = ctx.positionals[0] ?? '';
    const label = `checkpoint hook ${agentLine(event, 40)}`;
    // Everything a hook prints to stderr is one line (it may quote stdin or a file name).
    const io: Io = { ...ctx.io, err: (line) => ctx.io.err(agentLine(line, 1000)) };
    // CHECKPOINT_HOOK_TIMEOUT_MS: tests shorten the time limit.
    const limitMs = hookLimit(ctx.env.CHECKPOINT_HOOK_TIMEOUT_MS);
    let timer: NodeJS.Timeout | undefined;
    const timeout = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), limitMs);
    });
    const work = async (): Promise<void> => {
      if (!isHookEvent(event)) {
        io.err(`${label}: unknown event (use ${events}); nothing done.`);
        return;
      }
      const { input, problem } = parseHookInput(await (ctx.io.stdin ?? (() => readStdin(HOOK_INPUT_MAX_BYTES)))());
      if (problem) io.err(`${label}: ${problem}; going on without it.`);
      const cwd = await hookFolder(input, ctx.values.cwd, ctx.cwd, ctx.reads);
      // The session's folder, opened as every command opens its own: the same memory folder as `checkpoint save` there.
      const store = await ctx.store(cwd);
      if (event === 'session-start') {
        const context = await sessionStartContext(store, { resumeArgs: ctx.values.dir ? ['--dir', store.memoryDir] : [] });
        await recordSessionStart(store.memoryDir, { source: input.source, told: context !== undefined });
        // Answered once per session start, when the plugin's hooks and Connect's both run.
        if (context && firstToAnswer(input, store.memoryDir, context)) io.out(sessionStartOutput(context));
        return;
      }
      const r =
        event === 'post-compact'
          ? await saveCompactSummary(store, input, { env: ctx.env })
          : await autoSave(store, input, {
              env: ctx.env,
              onlyWhenChanged: event === 'session-end',
              reason: event === 'session-end' ? 'when the session ended' : undefined,
            });
      for (const w of r.warnings) io.err(`${label}: ${w}`);
      if (r.skipped) io.err(`${label}: nothing saved: ${r.skipped}.`);
    };
    try {
      if ((await Promise.race([work().then(() => 'done' as const), timeout])) === 'timeout') {
        io.err(`${label}: gave up after ${limitMs / 1000} s.`);
        ctx.io.abandon?.();
      }
    } catch (err) {
      io.err(`${label}: ${errorMessage(err)}`);
    } finally {
      clearTimeout(timer);
    }
  },
});

/** The hook's time limit: a whole number of milliseconds a timer can wait (1 to 2³¹−1), else the default. */
function hookLimit(value: string | undefined): number {
  const ms = Number(value);
  return Number.isSafeInteger(ms) && ms >= 1 && ms <= 2 ** 31 - 1 ? ms : HOOK_TIMEOUT_MS;
}
