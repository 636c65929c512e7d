// The core the extension works with after activation, loaded on first use (the view's first listing, the first
// branch read, a command or a tool call) through `loadCore()` (loadCore.ts); the build makes it a file of its own,
// so activating the extension does not parse it.
export { AGENT_TOOLS, parseToolInput } from './agentTools';
export { renderCheckpointBody } from './core/checkpoint';
export { combine } from './core/combine';
export { commitWork } from './core/commit';
export { readBranch } from './core/git';
export { resolveGitDir } from './core/gitDir';
export { pullCheckpoints, pushCheckpoints } from './core/handoff';
export { writeLaunchers } from './core/launcher';
export { resolveMemoryDir } from './core/memoryDir';
export { findPending } from './core/pending';
export { readPlanProgress, resolvePlansDir } from './core/plans';
export { branchFromSnapshot } from './core/snapshot';
export { openStore } from './core/openStore';
export { OrphanRemovedError } from './core/store';
