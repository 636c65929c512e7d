// dist/cli.js, the `checkpoint` command: it loads the whole CLI (src/cli/main.ts → dist/cli-main.js) with V8's code
// cache (src/cli/codeCache.ts) and runs it; the only other thing done here is to start a save's status scan first.
import path = require('node:path');
import { requireCached, skipCodeCache } from './codeCache';
import { startStatusScan } from '../core/gitProcess';

type Main = { main(argv: string[], onGiveUp: () => void): void };

const argv = process.argv.slice(2);
// A save's git status starts now, in the folder the save runs in: git scans the work tree while the CLI loads.
if (argv[0] === 'save' && !argv.some((a) => a === '--cwd' || a.startsWith('--cwd=') || a === '-h' || a === '--help')) startStatusScan(process.cwd(), process.env);
// One cache per command (a command word that exits 2 writes none); a run that gives up (a hook past its time limit)
// writes none either.
const cli = requireCached(path.join(__dirname, 'cli-main.js'), argv[0]) as Main;
cli.main(argv, skipCodeCache);
