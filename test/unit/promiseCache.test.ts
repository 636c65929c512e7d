import { test } from 'node:test';
import * as assert from 'node:assert/strict';
import { PromiseCache } from '../../src/core/promiseCache';

test('PromiseCache: one promise shared until cleared; its value once resolved', async () => {
  const cache = new PromiseCache<number>();
  let made = 0;
  const make = async (): Promise<number> => ++made;
  const [a, b] = await Promise.all([cache.get(make), cache.get(make)]);
  assert.deepEqual([a, b, made, cache.value], [1, 1, 1, 1]);
  cache.clear();
  assert.equal(cache.value, undefined);
  assert.equal(await cache.get(make), 2);
});

test('PromiseCache: a rejected promise is not kept', async () => {
  const cache = new PromiseCache<string>();
  await assert.rejects(cache.get(() => Promise.reject(new Error('no'))));
  assert.equal(cache.started, false);
  assert.equal(await cache.get(async () => 'yes'), 'yes');
});

test('PromiseCache: a promise that settles after clear() is not kept', async () => {
  const cache = new PromiseCache<string>();
  let release!: (v: string) => void;
  const late = cache.get(() => new Promise((r) => (release = r)));
  cache.clear();
  const fresh = cache.get(async () => 'new');
  release('old');
  assert.equal(await late, 'old');
  assert.equal(await fresh, 'new');
  assert.equal(cache.value, 'new');
});
