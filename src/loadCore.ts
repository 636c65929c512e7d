import { PromiseCache } from './core/promiseCache';

type Core = typeof import('./lazyCore');
const core = new PromiseCache<Core>();

/** The core's operations (lazyCore.ts), loaded once, on first use: activation does not parse them. */
export const loadCore = (): Promise<Core> => core.get(() => import('./lazyCore'));
