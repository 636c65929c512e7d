import { isFolder } from '../core/files';
import { isAbsolute, resolve as resolvePath } from 'node:path';
import { fileURLToPath } from 'node:url';
import type * as McpSdk from './mcpSdk';
import { AGENT_TOOLS, type ToolTarget } from './agentTools';
import { CheckpointError } from '../core/errors';
import { openStore } from '../core/openStore';

// `checkpoint mcp`: the checkpoint tools (agentTools.ts) as an MCP server over stdio, with the official SDK. The SDK
// is a file of its own (./mcpSdk, dist/mcpSdk.js), required when the server starts: every other command runs
// without it.

/** Set by the bundler from package.json (scripts/build.mjs); absent when run from the tsc output. */
declare const CHECKPOINT_VERSION: string | undefined;
const VERSION = typeof CHECKPOINT_VERSION === 'string' ? CHECKPOINT_VERSION : '0.0.0-dev';

export interface McpServerOptions {
  /** `--cwd`: the project when a call names none; undefined: the client's first root, else the working folder. */
  cwd?: string;
  /** `--dir`: the memory directory for every call. */
  dir?: string;
  env: NodeJS.ProcessEnv;
  stdin?: NodeJS.ReadableStream & { pause(): unknown };
  stdout?: NodeJS.WritableStream;
  /** Where diagnostics go (never stdout: that is the protocol's). */
  log?: (line: string) => void;
}

const INSTRUCTIONS =
  'Checkpoints are short notes of where work stopped (left off, done, failed approaches, plan step, modified files), saved in ' +
  "the project's agent memory folder and indexed in its MEMORY.md. Save one with checkpoint_save before the context is compacted, " +
  'when a session ends or before switching task; at the start of a session, checkpoint_list shows what can be resumed and ' +
  'checkpoint_resume picks one up. Tools take an optional cwd: the absolute path of the project.';

/** How long a call may wait for the client's roots before it falls back to the server's folder. */
const ROOTS_TIMEOUT_MS = 2000;
/** After stdin closes or a signal arrives, calls already running get at most this long to finish. */
const DRAIN_MS = 10_000;

/**
 * Serves the checkpoint tools on stdin/stdout until the client goes away (stdin ends) or a signal arrives; calls
 * that are running then finish first (a save is written completely or not at all). Resolves with the exit code.
 */
export async function runMcpServer(opts: McpServerOptions): Promise<number> {
  const { McpServer, RootsListChangedNotificationSchema, StdioServerTransport } = require('./mcpSdk') as typeof McpSdk;
  const stdin = opts.stdin ?? process.stdin;
  const stdout = opts.stdout ?? process.stdout;
  const log = opts.log ?? ((line: string) => process.stderr.write(`${line}\n`));
  const server = new McpServer({ name: 'checkpoint', title: 'Checkpoint', version: VERSION }, { instructions: INSTRUCTIONS, capabilities: { tools: {} } });

  let roots: Promise<string | undefined> | undefined;
  server.server.setNotificationHandler(RootsListChangedNotificationSchema, () => {
    roots = undefined;
  });
  /** The client's first `file:` root, when it offers roots. */
  const clientRoot = (): Promise<string | undefined> => {
    if (!server.server.getClientCapabilities()?.roots) return Promise.resolve(undefined);
    roots ??= server.server
      .listRoots(undefined, { timeout: ROOTS_TIMEOUT_MS })
      .then((r) => {
        const uri = r.roots.find((root) => root.uri.startsWith('file:'))?.uri;
        return uri ? fileURLToPath(uri) : undefined;
      })
      .catch(() => undefined);
    return roots;
  };

  /** The checkpoints of the folder a call names, else of `--cwd`, else of the client's root, else the working folder. */
  const targetFor = async (cwdArg: string | undefined): Promise<ToolTarget> => {
    const cwd =
      cwdArg !== undefined && isAbsolute(cwdArg) ? resolvePath(cwdArg) : resolvePath(opts.cwd ?? (await clientRoot()) ?? process.cwd(), cwdArg ?? '.');
    if (!(await isFolder(cwd))) throw new CheckpointError(`cwd ${cwd} is not a folder.`);
    return (await openStore({ cwd, dir: opts.dir, env: opts.env })).store;
  };

  for (const tool of AGENT_TOOLS) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.input,
        annotations: { title: tool.title, readOnlyHint: tool.effect === 'reads', destructiveHint: tool.effect === 'consumes', idempotentHint: tool.effect === 'reads', openWorldHint: false },
      },
      // The SDK has validated the arguments against tool.input; a thrown error becomes a tool error with its message.
      async (args: Record<string, unknown>) => {
        const text = await tool.run(await targetFor(args.cwd as string | undefined), args as never);
        return { content: [{ type: 'text' as const, text }] };
      },
    );
  }

  // A client that goes away while a reply is being written must not crash the server mid-save.
  stdout.on('error', () => undefined);
  const transport = new StdioServerTransport(stdin as never, stdout as never);
  transport.onerror = (err) => log(`checkpoint mcp: ${err.message}`);

  let finish!: (code: number) => void;
  const done = new Promise<number>((resolve) => (finish = resolve));
  let stopping = false;
  /** Requests received and not yet answered: when the client goes, they finish before the server does. */
  const unanswered = new Set<string | number>();
  const finishWhenIdle = (): void => {
    if (stopping && unanswered.size === 0) finish(0);
  };
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    finishWhenIdle();
    // A call that never ends (it cannot: every git call has a time limit) must not keep the process forever.
    setTimeout(() => finish(0), DRAIN_MS).unref();
  };
  stdin.once('end', stop);
  stdin.once('close', stop);
  process.once('SIGTERM', stop);
  process.once('SIGINT', stop);
  await server.connect(transport);
  const receive = transport.onmessage;
  transport.onmessage = (message) => {
    if ('method' in message && 'id' in message) unanswered.add(message.id);
    receive?.(message);
  };
  const send = transport.send.bind(transport);
  transport.send = (message) => {
    if (('result' in message || 'error' in message) && message.id !== undefined) {
      unanswered.delete(message.id);
      setImmediate(finishWhenIdle);
    }
    return send(message);
  };
  const code = await done;
  await server.close().catch(() => undefined);
  stdin.removeListener('end', stop);
  stdin.removeListener('close', stop);
  process.removeListener('SIGTERM', stop);
  process.removeListener('SIGINT', stop);
  // Stop reading, so that nothing keeps the process once its last reply is out.
  (stdin as NodeJS.ReadableStream & { destroy?: () => void }).destroy?.();
  return code;
}
