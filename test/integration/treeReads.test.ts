import * as assert from 'node:assert/strict';
import { rmSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import * as vscode from 'vscode';
import type { CheckpointNode } from '../../src/editor/views/nodes';
import { atomicWrite, checkpointText } from '../support/fixtures';
import { folderChildren, label, save, suite, useMemoryDir, waitFor, watchersReady } from './helpers';

/** Checkpoint files in the memory directory when the tree first scans it. */
const N = 200;
/** Of those, files deleted one by one to let the watcher's queue drain (see `settle`). */
const BARRIERS = 7;

// Issue 5's budget "tree refresh after one checkpoint file changes: files re-read 1", measured in the real extension
// host through the tree's diagnostic counter (`api.model.stats`), with files written on disk as the CLI or an agent would.
suite('Checkpoints view re-reads only the changed file', { memoryDir: false }, (t) => {
  let dir: string;
  let scanReads = 0;
  let scans = 0;
  let nextBarrier = 0;
  /** Paths of every file event the model reported for this suite's directory. */
  const events: string[] = [];
  let eventSub: vscode.Disposable | undefined;

  const file = (name: string): string => path.join(dir, `checkpoint-${name}.md`);
  const reads = (): number => t.api.model.stats.filesRead;
  const items = async (): Promise<CheckpointNode[]> => (await folderChildren(t.api, t.folder)).filter((n) => n.kind === 'checkpoint');
  const find = async (name: string): Promise<CheckpointNode | undefined> => (await items()).find((n) => label(t.api, n) === name);
  const tooltip = (node: CheckpointNode | undefined): string => {
    if (!node) return '';
    const tip = t.api.tree.getTreeItem(node).tooltip;
    return tip instanceof vscode.MarkdownString ? tip.value : String(tip ?? '');
  };

  /**
   * Waits until every file event so far has been handled. VS Code reports a write as one or several events (a
   * rename over a file can come as a change and a create), possibly in separate batches, and the tree handles them
   * one after the other. A barrier file is deleted (a deletion reads nothing) and the wait ends when it has left the
   * tree: by then the events that came before it have been handled, so a duplicate read would have been counted.
   */
  const settle = async (): Promise<void> => {
    assert.ok(nextBarrier < BARRIERS, 'a barrier file left');
    const name = `barrier-${nextBarrier++}`;
    rmSync(file(name));
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find(name)) === undefined, `${name} to leave the tree`);
  };

  /**
   * Writes checkpoint `name`, with `marker` in its Left Off, through `write` (as an agent or the CLI writes it), waits
   * until the tree's tooltip shows it (`what`), lets the file events drain (see `settle`), and returns how many files
   * were read meanwhile.
   */
  const readsForWrite = async (name: string, marker: string, write: (file: string, text: string) => void, what: string): Promise<number> => {
    const start = reads();
    events.length = 0;
    write(file(name), checkpointText(name, marker, { saved: new Date() }));
    await waitFor(t.api.tree.onDidChangeTreeData, async () => tooltip(await find(name)).includes(marker), what);
    await settle();
    return reads() - start;
  };

  it(`reads each of the ${N} files once in the first scan`, () => {
    assert.equal(scans, 1, 'one scan of the directory');
    assert.equal(scanReads, N);
  });

  it('re-reads one file, and not the temp file, when it is rewritten on disk (temp + rename)', async () => {
    const read = await readsForWrite('cp-100', 'editedByAnAgent', atomicWrite, 'the rewritten file in the tooltip');
    assert.equal(read, 1, `files read after one rewrite (events: ${events.join(', ')})`);
    // It was saved an hour ago; now just now.
    assert.equal(t.api.tree.getTreeItem((await find('cp-100'))!).description, 'main · just now');
    assert.ok(events.includes('checkpoint-cp-100.md'), `an event for the file (events: ${events.join(', ')})`);
    assert.deepEqual(events.filter((e) => e.startsWith('.checkpoint-tmp-')), [], 'no event for the temp file');
    assert.equal((await items()).length, N - nextBarrier);
  });

  it('reads one file when one is created on disk', async () => {
    const read = await readsForWrite('new-one', 'createdByTheCli', atomicWrite, 'the new file in the tree');
    assert.equal(read, 1, `files read after one creation (events: ${events.join(', ')})`);
    assert.deepEqual(events.filter((e) => e.startsWith('.checkpoint-tmp-')), [], 'no event for the temp file');
    assert.equal((await items()).length, N - nextBarrier + 1);
  });

  it('reads one file when one is written in place (VS Code reports a create and a change)', async () => {
    const read = await readsForWrite('in-place', 'writtenInPlace', writeFileSync, 'the new file in the tree');
    assert.equal(read, 1, `files read after one write (events: ${events.join(', ')})`);
  });

  it('reads nothing when one is deleted on disk, and drops its item', async () => {
    const start = reads();
    const count = (await items()).length;
    rmSync(file('cp-150'));
    await waitFor(t.api.tree.onDidChangeTreeData, async () => (await find('cp-150')) === undefined, 'the deleted file to leave the tree');
    await settle();
    assert.equal(reads() - start, 0);
    assert.equal((await items()).length, count - 2); // cp-150 and the barrier
  });

  it('reads nothing for a temp file left behind (a writer killed before its rename)', async () => {
    const start = reads();
    events.length = 0;
    writeFileSync(path.join(dir, `.checkpoint-tmp-${process.pid}-leftover`), checkpointText('leftover', 'half written', { saved: new Date() }));
    await settle();
    assert.equal(reads() - start, 0);
    assert.deepEqual(events.filter((e) => e.startsWith('.checkpoint-tmp-')), []);
    assert.equal(await find('leftover'), undefined);
  });

  it('reads the file once when this extension saves it (its own refresh, then the watcher\'s event)', async () => {
    const start = reads();
    events.length = 0;
    await save(t.folder, { name: 'saved-here', leftOff: 'savedFromTheEditor' });
    assert.ok(tooltip(await find('saved-here')).includes('savedFromTheEditor'), 'the tree shows the save when the command returns');
    await settle();
    assert.equal(reads() - start, 1, `files read after one save (events: ${events.join(', ')})`);
  });

  return {
    async setup() {
      // What earlier suites left: let the tree finish scanning every folder before counting.
      await t.api.tree.getChildren();
      await folderChildren(t.api, t.folder);
      dir = t.temp('reads');
      const base = Date.now() - 3_600_000;
      for (let i = 0; i < N; i++) {
        const name = i < BARRIERS ? `barrier-${i}` : `cp-${String(i).padStart(3, '0')}`;
        atomicWrite(file(name), checkpointText(name, `step ${i}`, { saved: new Date(base + i * 1000) }));
      }
      const before = { reads: reads(), scans: t.api.model.stats.scans };
      await useMemoryDir(t.api, t.folder, dir);
      await waitFor(t.api.tree.onDidChangeTreeData, async () => (await items()).length === N, `the tree to show all ${N} checkpoints`);
      scanReads = reads() - before.reads;
      scans = t.api.model.stats.scans - before.scans;
      await watchersReady(t.api, t.folder, dir);
      eventSub = t.api.model.onDidChangeFiles((e) => {
        if (path.dirname(e.path) === dir) events.push(path.basename(e.path));
      });
    },
    async teardown() {
      eventSub?.dispose();
      await useMemoryDir(t.api, t.folder, undefined);
    },
  };
});
