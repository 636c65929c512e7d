type CommitModule = typeof import('./core/commit');
let loaded: CommitModule | undefined;

/**
 * The commit module (src/core/commit.ts), loaded on first use by Save and Commit (CLI `save --commit`, the editor's
 * command). The bundles resolve this require to dist/commit.js, built on its own with simple-git (scripts/build.mjs),
 * so that neither dist/cli.js nor dist/extension.js carries simple-git: save, list and activation never parse it.
 */
export function loadCommitModule(): CommitModule {
  return (loaded ??= require('./core/commit') as CommitModule);
}
