// dist/cli.js, the `checkpoint` command. `checkpoint hook …` runs at every agent start and compaction, so it loads
// the hook's own small bundle (src/cli/hookEntry.ts → dist/hook.js); every other command loads the whole CLI
// (src/cli/main.ts → dist/cli-main.js), each with V8's code cache (src/cli/codeCache.ts). Both share one runner
// (src/cli/runner.ts); the only other thing done here is to start git's scan of the work tree first (a save's,
// or the one resume and show compare a snapshot with).
import path = require('node:path');
import { requireCached } from './codeCache';
import { startStatusScan } from '../core/gitProcess';
import { startWorkTreeScan } from '../core/workTreeScan';

type Main = { main(argv: string[]): void };

const argv = process.argv.slice(2);
const hook = argv[0] === 'hook';
// A save's git status starts now, in the folder the save runs in: git scans the work tree while the CLI loads; so
// does the scan of what changed since for resume and show.
const here = !argv.some((a) => a === '--cwd' || a.startsWith('--cwd=') || a === '-h' || a === '--help');
if (argv[0] === 'save' && here) startStatusScan(process.cwd(), process.env);
if ((argv[0] === 'resume' || (argv[0] === 'show' && !argv.includes('--raw'))) && here) startWorkTreeScan(process.cwd(), process.env);
// One cache per command of the CLI; the hook's events share theirs (a command word that exits 2 writes none).
const cli = requireCached(path.join(__dirname, hook ? 'hook.js' : 'cli-main.js'), hook ? 'hook' : argv[0]) as Main;
cli.main(argv);
