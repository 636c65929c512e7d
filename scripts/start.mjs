// `npm start`: builds the extension, then opens a real VS Code (code-server, on 127.0.0.1) with it installed,
// on a demo workspace with two checkpoints on different branches and a plan. Ctrl-C stops everything.
import { execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { createDemoWorkspace } from './demo.mjs';
import { registerCleanup, stageRepoExtension, startCodeServer } from './harness/code-server.mjs';

const root = join(dirname(fileURLToPath(import.meta.url)), '..');
const { values } = parseArgs({ options: { folder: { type: 'string' }, port: { type: 'string' } } });

console.log('Building the extension…');
execFileSync(process.execPath, [join(root, 'scripts', 'build.mjs')], { stdio: 'inherit' });

const temp = mkdtempSync(join(tmpdir(), 'checkpoint-start-'));
registerCleanup({ sync: () => rmSync(temp, { recursive: true, force: true }), async: async () => rmSync(temp, { recursive: true, force: true }) });
const folder = values.folder ?? createDemoWorkspace(join(temp, 'demo'));
const extension = stageRepoExtension(join(temp, 'extension'));

const server = await startCodeServer({ workspace: folder, extensionDirs: [extension], copyExtensions: true });
const url = `${server.url}?folder=${encodeURIComponent(folder)}`;
console.log(`\nVS Code with Checkpoint is running at:\n\n  ${url}\n\nWorkspace: ${folder}${values.folder ? '' : ' (demo: checkpoints on main and feature/oauth, a plan in plans/)'}\nPress Ctrl-C to stop.`);
// Stay alive until a signal: registerCleanup stops the server and removes the temp folders.
setInterval(() => {}, 1 << 30);
