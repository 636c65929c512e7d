/**
 * A scripted stand-in for the Messages API on 127.0.0.1, so that the real Claude Code client runs whole sessions
 * offline (`ANTHROPIC_BASE_URL`, see {@link modelEnv}) while the test sees every request it sends.
 *
 * API:
 * - `const model = await scriptedModel({ rules: [...] })`; `model.url`; `await model.close()` (an `after` hook).
 * - A rule: `{ when, reply }`. `when` is a RegExp tested against the turn's prompt (the last user text of the
 *   request that is not a `<system-reminder>` block nor beside a tool result, as a skill's text is) or a function of
 *   the {@link Turn}. Rules in `model.rules` (added by a test) come first, then those given at start; the first that
 *   matches answers; with none, the model says {@link DEFAULT_ANSWER}.
 * - `reply` is a list of steps, one per request of the turn: step `turn.step` is the number of tool results since the
 *   prompt, so `[{ tool: 'Bash', input: { command: 'checkpoint list' } }, { text: 'Listed.' }]` calls the tool, then
 *   answers once its result came back. Past the last step the model answers {@link DEFAULT_ANSWER}. `reply` may
 *   also be a function of the turn giving one step.
 * - Both streamed (`"stream": true`, server-sent events) and plain JSON answers; `stop_reason` is `tool_use` for a
 *   tool call, else `end_turn`. Other paths (token counts, `/api/…`) get a small JSON answer.
 * - `model.requests`: every `POST /v1/messages` body, in order ({@link ModelRequest}); the helpers
 *   {@link systemText}, {@link userText}, {@link toolResults} and {@link promptOf} read them.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export const DEFAULT_ANSWER = 'OK.';

export type ContentBlock =
  | { type: 'text'; text: string }
  | { type: 'tool_use'; id: string; name: string; input: unknown }
  | { type: 'tool_result'; tool_use_id: string; content?: string | { type: string; text?: string }[]; is_error?: boolean }
  | { type: string; [k: string]: unknown };

export interface Message {
  role: 'user' | 'assistant' | 'system';
  content: string | ContentBlock[];
}

/** A Messages API request body, as far as the tests read it. */
export interface ModelRequest {
  model?: string;
  stream?: boolean;
  system?: string | { type: string; text: string }[];
  messages: Message[];
  tools?: { name: string }[];
  /** When the server received it (ms since the epoch). */
  receivedAt: number;
}

export interface Turn {
  /** The turn's prompt: the last user text that is not a system reminder nor beside a tool result. */
  prompt: string;
  /** How many tool results came back since the prompt: the index of the step to answer with. */
  step: number;
  /** The tool results since the prompt, oldest first, as text. */
  results: string[];
  request: ModelRequest;
}

export type Step = { text: string } | { tool: string; input: Record<string, unknown> };

export interface Rule {
  when: RegExp | ((turn: Turn) => boolean);
  reply: Step[] | ((turn: Turn) => Step);
}

export interface ScriptedModel {
  /** `http://127.0.0.1:<port>`, for ANTHROPIC_BASE_URL. */
  url: string;
  /** Every Messages request received, in order. */
  requests: ModelRequest[];
  /** Rules tried before the ones given at start (a test's own script for the next session). */
  rules: Rule[];
  close(): Promise<void>;
}

const text = (c: Message['content']): string[] =>
  typeof c === 'string' ? [c] : c.filter((b): b is { type: 'text'; text: string } => b.type === 'text' && typeof b.text === 'string').map((b) => b.text);

const resultText = (b: ContentBlock): string => {
  const c = (b as { content?: unknown }).content;
  if (typeof c === 'string') return c;
  if (Array.isArray(c)) return c.map((x: { text?: unknown }) => (typeof x?.text === 'string' ? x.text : '')).join('\n');
  return '';
};

/** The request's system text, its blocks joined by newlines. */
export function systemText(req: ModelRequest): string {
  return typeof req.system === 'string' ? req.system : (req.system ?? []).map((b) => b.text).join('\n');
}

/** Every text block of the request's user messages (system reminders included), joined by newlines. */
export function userText(req: ModelRequest): string {
  return req.messages.filter((m) => m.role === 'user').flatMap((m) => text(m.content)).join('\n');
}

/** Every tool result of the request, as text, oldest first. */
export function toolResults(req: ModelRequest): string[] {
  return req.messages.flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result').map(resultText)));
}

/** The turn a request is in: its prompt and the tool results since. */
export function turnOf(req: ModelRequest): Turn {
  let prompt = '';
  let at = -1;
  req.messages.forEach((m, i) => {
    // A message with tool results is the turn going on (a skill's text comes beside its tool's result).
    if (m.role !== 'user' || (typeof m.content !== 'string' && m.content.some((b) => b.type === 'tool_result'))) return;
    const own = text(m.content).filter((t) => !t.trimStart().startsWith('<system-reminder>'));
    if (own.length) {
      prompt = own[own.length - 1];
      at = i;
    }
  });
  const results = req.messages.slice(at + 1).flatMap((m) => (typeof m.content === 'string' ? [] : m.content.filter((b) => b.type === 'tool_result').map(resultText)));
  return { prompt, step: results.length, results, request: req };
}

/** The turn's prompt of a request. */
export const promptOf = (req: ModelRequest): string => turnOf(req).prompt;

let ids = 0;
const nextId = (prefix: string): string => `${prefix}_scripted${String(++ids).padStart(6, '0')}`;

function blocksOf(step: Step): ContentBlock[] {
  return 'tool' in step ? [{ type: 'tool_use', id: nextId('toolu'), name: step.tool, input: step.input }] : [{ type: 'text', text: step.text }];
}

function answer(rules: Rule[], req: ModelRequest): Step {
  const turn = turnOf(req);
  for (const r of rules) {
    const hit = r.when instanceof RegExp ? r.when.test(turn.prompt) : r.when(turn);
    if (!hit) continue;
    if (typeof r.reply === 'function') return r.reply(turn);
    return r.reply[turn.step] ?? { text: DEFAULT_ANSWER };
  }
  return { text: DEFAULT_ANSWER };
}

function sendStream(res: ServerResponse, model: string, blocks: ContentBlock[], stop: string): void {
  res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-cache' });
  const event = (type: string, data: Record<string, unknown>): void => {
    res.write(`event: ${type}\ndata: ${JSON.stringify({ type, ...data })}\n\n`);
  };
  event('message_start', {
    message: { id: nextId('msg'), type: 'message', role: 'assistant', model, content: [], stop_reason: null, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 1 } },
  });
  blocks.forEach((b, index) => {
    if (b.type === 'tool_use') {
      const { input, ...start } = b as { input: unknown };
      event('content_block_start', { index, content_block: { ...start, input: {} } });
      event('content_block_delta', { index, delta: { type: 'input_json_delta', partial_json: JSON.stringify(input) } });
    } else {
      event('content_block_start', { index, content_block: { type: 'text', text: '' } });
      event('content_block_delta', { index, delta: { type: 'text_delta', text: (b as { text: string }).text } });
    }
    event('content_block_stop', { index });
  });
  event('message_delta', { delta: { stop_reason: stop, stop_sequence: null }, usage: { output_tokens: 5 } });
  event('message_stop', {});
  res.end();
}

function readBody(req: IncomingMessage): Promise<string> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    req.on('data', (d: Buffer) => chunks.push(d));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

/** Starts the scripted model on a free port of 127.0.0.1. */
export async function scriptedModel(opts: { rules?: Rule[] } = {}): Promise<ScriptedModel> {
  const requests: ModelRequest[] = [];
  const extra: Rule[] = [];
  const server = createServer((req, res) => {
    void (async () => {
      const raw = await readBody(req);
      const url = new URL(req.url ?? '/', 'http://127.0.0.1');
      const json = (status: number, v: unknown): void => {
        res.writeHead(status, { 'content-type': 'application/json' });
        res.end(JSON.stringify(v));
      };
      if (req.method !== 'POST' || url.pathname !== '/v1/messages') {
        json(200, url.pathname.endsWith('/count_tokens') ? { input_tokens: 100 } : {});
        return;
      }
      let body: ModelRequest;
      try {
        body = { ...(JSON.parse(raw) as Omit<ModelRequest, 'receivedAt'>), receivedAt: Date.now() };
      } catch {
        json(400, { type: 'error', error: { type: 'invalid_request_error', message: 'not JSON' } });
        return;
      }
      requests.push(body);
      const step = answer([...extra, ...(opts.rules ?? [])], body);
      const blocks = blocksOf(step);
      const stop = 'tool' in step ? 'tool_use' : 'end_turn';
      const model = body.model ?? 'scripted';
      if (body.stream) sendStream(res, model, blocks, stop);
      else {
        json(200, {
          id: nextId('msg'), type: 'message', role: 'assistant', model, content: blocks, stop_reason: stop, stop_sequence: null, usage: { input_tokens: 10, output_tokens: 5 },
        });
      }
    })().catch(() => {
      if (!res.headersSent) res.writeHead(500);
      res.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    rules: extra,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
