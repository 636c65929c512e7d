import { PromiseCache } from './core/promiseCache';

/** A module loaded once, on first use (`import()`: the build makes it a file of its own); a failed load is retried. */
export function onFirstUse<T>(load: () => Promise<T>): () => Promise<T> {
  const cache = new PromiseCache<T>();
  return () => cache.get(load);
}

/** The core's operations (lazyCore.ts), loaded on first use: activation does not parse them. */
export const loadCore = onFirstUse(() => import('./lazyCore'));
