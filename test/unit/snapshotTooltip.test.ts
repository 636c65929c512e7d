// The Checkpoints tree's tooltip, with `vscode.MarkdownString` stood in for: it says why a checkpoint has no code
// snapshot, and which files its snapshot left out, as read back from the checkpoint's front matter.
import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { writeFileSync } from 'node:fs';
import * as path from 'node:path';
import Module = require('node:module');
import { renderCheckpoint } from '../../src/core/checkpointRender';
import { CheckpointStore } from '../../src/core/store';
import { tempDirs } from '../support/fixtures';

class MarkdownString {
  value = '';
  appendMarkdown(s: string): this {
    this.value += s;
    return this;
  }
  appendText(s: string): this {
    this.value += s;
    return this;
  }
}
type Loader = (request: string, ...rest: unknown[]) => unknown;
const loader = Module as unknown as { _load: Loader };
const load = loader._load;
loader._load = (request, ...rest) => (request === 'vscode' ? { MarkdownString } : load(request, ...rest));
const { checkpointTooltip } = require('../../src/editor/views/checkpointTooltip') as typeof import('../../src/editor/views/checkpointTooltip');

const temp = tempDirs();

test('the tree tooltip says why a checkpoint has no code snapshot, and which files a snapshot left out', async () => {
  const mem = path.join(temp(), 'mem');
  const store = new CheckpointStore({ memoryDir: mem, cwd: temp(), allowGit: false });
  for (const name of ['skipped', 'partial']) await store.save({ name, leftOff: 'x' });
  const skipped = await store.show('skipped');
  writeFileSync(skipped.path, renderCheckpoint({ ...skipped, snapshotSkipped: 'git did not answer within 10 s and was stopped' }));
  const partial = await store.show('partial');
  writeFileSync(partial.path, renderCheckpoint({ ...partial, snapshot: 'a'.repeat(40), snapshotLeftOut: ['dump.bin', 'video.mp4'] }));
  const byName = new Map((await store.list()).map((s) => [s.name, s]));
  const tip = (name: string): string => (checkpointTooltip(byName.get(name)!, { currentBranch: '', restricted: false }) as unknown as MarkdownString).value;
  assert.match(tip('skipped'), /\*\*No code snapshot:\*\* git did not answer within 10 s and was stopped/);
  assert.match(tip('partial'), /\*\*Left out of the code snapshot \(too large\):\*\* `dump\.bin`, `video\.mp4`/);
  assert.doesNotMatch(tip('partial'), /No code snapshot/);
});
