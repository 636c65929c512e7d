// The scripted model the Claude Code suite runs the real client against (test/support/scriptedModel.ts): the
// Messages API's two answer forms, steps counted by tool results, every request recorded.
import { after, before, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { scriptedModel, turnOf, type Message, type ScriptedModel } from '../support/scriptedModel';

let model: ScriptedModel;
before(async () => {
  model = await scriptedModel({
    rules: [{ when: /^save it$/, reply: [{ tool: 'Bash', input: { command: 'checkpoint save x --left-off y' } }, { text: 'Saved.' }] }],
  });
});
after(() => model.close());

async function post(messages: Message[], stream: boolean): Promise<Response> {
  return fetch(`${model.url}/v1/messages?beta=true`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'm', stream, messages }) });
}

const prompt: Message = { role: 'user', content: [{ type: 'text', text: '<system-reminder>\nmemory\n</system-reminder>' }, { type: 'text', text: 'save it' }] };

test('streamed: server-sent events of a tool call, then after its result the next step as text', async () => {
  const r = await post([prompt], true);
  assert.equal(r.headers.get('content-type'), 'text/event-stream');
  interface Event {
    type: string;
    content_block: { id: string; name: string };
    delta: { partial_json: string; stop_reason: string };
  }
  const events = (await r.text()).split('\n\n').filter(Boolean).map((e) => JSON.parse(e.split('\n')[1].slice('data: '.length)) as Event);
  assert.deepEqual(events.map((e) => e.type), ['message_start', 'content_block_start', 'content_block_delta', 'content_block_stop', 'message_delta', 'message_stop']);
  assert.equal(events[1].content_block.name, 'Bash');
  assert.deepEqual(JSON.parse(events[2].delta.partial_json), { command: 'checkpoint save x --left-off y' });
  assert.equal(events[4].delta.stop_reason, 'tool_use');

  const id = events[1].content_block.id;
  const next: Message[] = [prompt, { role: 'assistant', content: [{ type: 'tool_use', id, name: 'Bash', input: {} }] }, { role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: 'Checkpoint "x" saved.' }, { type: 'text', text: 'a skill text beside the result' }] }];
  const text = await (await post(next, true)).text();
  assert.match(text, /"text_delta","text":"Saved\."/);
  assert.match(text, /"stop_reason":"end_turn"/);
  const turn = turnOf(model.requests[model.requests.length - 1]);
  assert.deepEqual([turn.prompt, turn.step, turn.results], ['save it', 1, ['Checkpoint "x" saved.']]);
});

test('not streamed: one JSON message; no rule matches: the default answer; other paths get JSON; every request recorded', async () => {
  const before = model.requests.length;
  const r = (await (await post([{ role: 'user', content: 'something else' }], false)).json()) as { content: { type: string; text: string }[]; stop_reason: string };
  assert.deepEqual([r.content, r.stop_reason], [[{ type: 'text', text: 'OK.' }], 'end_turn']);
  const counted = (await (await fetch(`${model.url}/v1/messages/count_tokens`, { method: 'POST', body: '{}' })).json()) as { input_tokens: number };
  assert.equal(counted.input_tokens, 100);
  assert.equal(model.requests.length, before + 1);
});
