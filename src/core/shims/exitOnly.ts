// What proper-lockfile gets for `require('signal-exit')` in dist/proper-lockfile.js (scripts/build.mjs). signal-exit
// wraps process.emit and adds SIGINT/SIGTERM/… handlers to the process: in the extension host every extension
// shares, that is not ours to do. Here a lock held when the process exits normally is released as before; one left
// by a killed process is stale after LOCK_STALE_MS and taken over (src/core/lock.ts).
function onExit(callback: () => void): () => void {
  const listener = (): void => callback();
  process.once('exit', listener);
  return () => process.removeListener('exit', listener);
}

export = onExit;
