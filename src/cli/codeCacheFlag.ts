/**
 * Set on `globalThis` by a run that gives up (the hook past its time limit, src/cli/runner.ts): it exits at once,
 * without writing a code cache (src/codeCache.ts). A registered symbol: the bundle that sets it is not the one that
 * reads it.
 */
export const SKIP_CODE_CACHE = Symbol.for('checkpoint.skipCodeCache');
