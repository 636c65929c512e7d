'use strict';
// In-process measurements for scripts/bench/run.mjs, each in a fresh Node process. Prints one JSON object.
//   load <bundle> cli|extension [workspace]      require() time of a bundle; for the extension also activate() and
//                                                the whole start-up work (CPU, until the deferred start is done)
//   upsert <core.cjs> <dir> <runs>               MEMORY.md upsert vs a read + write of the file, interleaved
//   tree <core.cjs> <dir> <runs> [tree.cjs]      refresh after one checkpoint file changes, vs one file's parse
//   lock <core.cjs> <dir> <runs>                 how long a save holds the lock, vs the two durable writes inside it
const fs = require('node:fs');
const fsp = fs.promises;
const path = require('node:path');

const now = () => Number(process.hrtime.bigint()) / 1e6;
const [mode, ...args] = process.argv.slice(2);

async function load(bundle, kind, workspace) {
  const out = {};
  let context;
  if (kind === 'extension') {
    const { installVscodeStub } = require('./vscode-stub.cjs');
    ({ context } = installVscodeStub({ workspace, extensionPath: path.dirname(path.dirname(bundle)) }));
  }
  const cpu0 = process.cpuUsage();
  const t0 = now();
  const mod = require(bundle);
  out.requireMs = now() - t0;
  if (kind === 'extension') {
    if (typeof mod.activate !== 'function') {
      out.error = 'no activate() export';
    } else {
      try {
        const t1 = now();
        const r = mod.activate(context);
        out.activateSyncMs = now() - t1;
        await r;
        out.activateResolvedMs = now() - t1;
        // The start activate() defers (status bar, launchers, resume offer) runs one tick later: the work it costs
        // is start-up work too, whether a bundle parses the core at activation or then. Counted as CPU time once the
        // process has gone quiet.
        await new Promise((resolve) => setTimeout(resolve, 300));
        const cpu = process.cpuUsage(cpu0);
        out.startupCpuMs = (cpu.user + cpu.system) / 1000;
      } catch (err) {
        out.error = `activate() threw with the stub vscode API: ${String(err && err.message ? err.message : err).split('\n')[0]}`;
      }
      try {
        if (typeof mod.deactivate === 'function') await mod.deactivate();
        for (const d of context.subscriptions) if (d && typeof d.dispose === 'function') d.dispose();
      } catch {
        /* best effort */
      }
    }
  }
  return out;
}

/** Durable write like any careful writer: temp file, fsync, rename (inline; not the core's function). */
async function durableWrite(file, text) {
  const tmp = `${file}.floor-${process.pid}`;
  const h = await fsp.open(tmp, 'wx');
  await h.writeFile(text, 'utf8');
  await h.sync();
  await h.close();
  await fsp.rename(tmp, file);
}

async function upsert(corePath, dir, runs) {
  const core = require(corePath);
  const index = path.join(dir, 'MEMORY.md');
  const meta = JSON.parse(fs.readFileSync(path.join(dir, 'meta.json'), 'utf8'));
  let n = 0;
  const subject = async () => {
    const t = now();
    const text = await fsp.readFile(index, 'utf8');
    const cp = { name: meta.middleName, branch: 'feature/bench', saved: new Date().toISOString(), description: `re-saved ${n++}` };
    const edit = core.upsertIndex(text, cp.name, core.formatBullet(cp));
    await core.writeFileAtomic(index, edit.text);
    return now() - t;
  };
  const floor = async () => {
    const t = now();
    const text = await fsp.readFile(index, 'utf8');
    await durableWrite(index, text);
    return now() - t;
  };
  const plain = async () => {
    const t = now();
    const text = await fsp.readFile(index, 'utf8');
    await fsp.writeFile(index, text);
    return now() - t;
  };
  const res = { floor: [], subject: [], plain: [] };
  for (let i = -3; i < runs; i++) {
    const order = i % 2 === 0 ? [['floor', floor], ['subject', subject], ['plain', plain]] : [['plain', plain], ['subject', subject], ['floor', floor]];
    for (const [k, fn] of order) {
      const ms = await fn();
      if (i >= 0) res[k].push(ms);
    }
  }
  const final = fs.readFileSync(index, 'utf8');
  res.check = { bullets: core.indexedNames(final).length, bytes: Buffer.byteLength(final) };
  return res;
}

/** Counts the checkpoint files opened or read while `fn` runs. */
async function countReads(fn) {
  const seen = [];
  const wrap = (obj, key) => {
    const orig = obj[key];
    obj[key] = function (p, ...rest) {
      if (typeof p === 'string' && /checkpoint-.*\.md$/.test(p)) seen.push(p);
      return orig.call(this, p, ...rest);
    };
    return () => (obj[key] = orig);
  };
  const undo = [wrap(fsp, 'open'), wrap(fsp, 'readFile'), wrap(fs, 'readFileSync'), wrap(fs, 'openSync'), wrap(fs, 'readFile'), wrap(fs, 'open')];
  const t = now();
  try {
    const value = await fn();
    return { ms: now() - t, reads: seen.length, files: new Set(seen).size, value };
  } finally {
    undo.forEach((u) => u());
  }
}

async function tree(corePath, dir, runs, treePath) {
  const core = require(corePath);
  const store = new core.CheckpointStore({ memoryDir: dir, cwd: dir, allowGit: false });
  const files = (await store.files()).sort();
  const target = files[Math.floor(files.length / 2)];
  const original = fs.readFileSync(target, 'utf8');
  const res = { unit: 'CheckpointStore.summarize', floor: [], subject: [], full: [], reads: [], fullReads: 0, entries: 0 };
  // The "tree": every entry summarized once (as the first render does).
  const first = await countReads(() => store.list({ includeJson: false }));
  res.entries = first.value.length;
  res.fullReads = first.files;
  let refresh = (file) => store.summarize(file);
  if (treePath) {
    // A tree cache exposed outside `vscode` (not present yet): see scripts/bench/run.mjs.
    const t = require(treePath);
    if (typeof t.createBenchCache === 'function') {
      const cache = await t.createBenchCache(dir);
      refresh = (file) => cache.refresh(file);
      res.unit = 'tree cache';
    }
  }
  for (let i = -3; i < runs; i++) {
    // A save from elsewhere rewrites one file (new text, new mtime): its Left Off and the description drawn from it.
    fs.writeFileSync(target, original.replace(/^description: .*$/m, `description: edited ${i}`).replace(/^## Left Off\n.*$/m, `## Left Off\nedited ${i}`));
    // The floor: read that one file (asynchronously, as the extension host does) and parse it.
    const floor = async () => {
      const t = now();
      const text = await fsp.readFile(target, 'utf8');
      core.parseCheckpoint(text, path.basename(target, '.md').slice('checkpoint-'.length));
      return now() - t;
    };
    const subject = async () => {
      const r = await countReads(() => refresh(target));
      if (r.value && r.value.description !== `edited ${i}`) throw new Error(`refresh returned a stale entry: ${r.value.description}`);
      return r;
    };
    let f;
    let s;
    if (i % 2 === 0) {
      f = await floor();
      s = await subject();
    } else {
      s = await subject();
      f = await floor();
    }
    if (i >= 0) {
      res.floor.push(f);
      res.subject.push(s.ms);
      res.reads.push(s.files);
    }
  }
  // What a refresh without a per-file cache costs: every file again.
  for (let i = 0; i < Math.min(3, runs); i++) res.full.push((await countReads(() => store.list({ includeJson: false }))).ms);
  fs.writeFileSync(target, original);
  return res;
}

/**
 * Times the memory directory's lock from outside the core: from the lock folder's creation (the atomic mkdir that takes
 * it) to the call that removes it (the release). The lock library's file-system calls go through node:fs's callback
 * functions, looked up at each call, so wrapping them here sees both.
 */
function watchLock(dir) {
  const lockPath = path.join(dir, '.checkpoint.lock');
  const { mkdir, rmdir } = fs;
  let taken = 0;
  const seen = { lastHeldMs: 0 };
  fs.mkdir = function (p, ...rest) {
    const cb = rest.pop();
    if (p !== lockPath) return mkdir.call(fs, p, ...rest, cb);
    return mkdir.call(fs, p, ...rest, (err, ...more) => {
      if (!err) taken = now();
      cb(err, ...more);
    });
  };
  fs.rmdir = function (p, ...rest) {
    if (p === lockPath && taken) {
      seen.lastHeldMs = now() - taken;
      taken = 0;
    }
    return rmdir.call(fs, p, ...rest);
  };
  return seen;
}

/**
 * The critical section of a save: how long the memory directory's lock is held (from taking the lock to releasing it,
 * {@link watchLock}), for a normal save and for one whose Left Off holds a 120,000-space run (parsing and formatting
 * happen before the lock, so it must not be longer). The floor: the two durable writes (checkpoint file and MEMORY.md)
 * the critical section cannot do without.
 */
async function lockHeld(corePath, dir, runs) {
  const core = require(corePath);
  const index = path.join(dir, 'MEMORY.md');
  const store = new core.CheckpointStore({ memoryDir: dir, cwd: dir, allowGit: false });
  const normal = 'Wiring the bench\nsecond line';
  const hostile = `a${' '.repeat(120_000)}b`;
  const lock = watchLock(dir);
  const held = async (leftOff) => {
    lock.lastHeldMs = 0;
    await store.save({ name: 'bench', leftOff, done: ['one', 'two'], failed: ['three'], force: true });
    if (!lock.lastHeldMs) throw new Error('the save took no lock the bench could see');
    return lock.lastHeldMs;
  };
  // The same bytes as the save writes (rendered outside the timing): the floor is the I/O alone.
  const rendered = (leftOff) => core.renderCheckpoint({ name: 'bench', description: 'x', branch: '', saved: new Date().toISOString(), leftOff, done: ['one', 'two'], failed: ['three'], decisions: [], questions: [], modifiedFiles: [] });
  const floorFor = (content) => async () => {
    const t = now();
    const text = await fsp.readFile(index, 'utf8');
    await durableWrite(path.join(dir, 'floor-checkpoint.md'), content);
    await durableWrite(path.join(dir, 'floor-MEMORY.md'), text);
    return now() - t;
  };
  const floor = floorFor(rendered(normal));
  const floorHostile = floorFor(rendered(hostile));
  const res = { floor: [], subject: [], floorHostile: [], hostile: [] };
  for (let i = -3; i < runs; i++) {
    const order = [['floor', floor], ['subject', () => held(normal)], ['floorHostile', floorHostile], ['hostile', () => held(hostile)]];
    if (i % 2) order.reverse();
    for (const [k, fn] of order) {
      const ms = await fn();
      if (i >= 0) res[k].push(ms);
    }
  }
  return res;
}

(async () => {
  let out;
  if (mode === 'load') out = await load(path.resolve(args[0]), args[1], args[2]);
  else if (mode === 'upsert') out = await upsert(path.resolve(args[0]), args[1], Number(args[2]));
  else if (mode === 'lock') out = await lockHeld(path.resolve(args[0]), args[1], Number(args[2]));
  else if (mode === 'tree') out = await tree(path.resolve(args[0]), args[1], Number(args[2]), args[3]);
  else throw new Error(`unknown mode ${mode}`);
  process.stdout.write(`${JSON.stringify(out)}\n`);
})().catch((err) => {
  process.stderr.write(`${err && err.stack ? err.stack : err}\n`);
  process.exit(1);
});
