// dist/cli.js, the `checkpoint` command: it loads the whole CLI (src/cli/main.ts → dist/cli-main.js) with V8's code
// cache (src/cli/codeCache.ts) and runs it.
import { join } from 'node:path';
import { requireCached, skipCodeCache } from './codeCache';

type Main = { main(argv: string[], onGiveUp: () => void): void };

const argv = process.argv.slice(2);
// One cache per command (a command word that exits 2 writes none); a run that gives up (a hook past its time limit)
// writes none either.
const cli = requireCached(join(__dirname, 'cli-main.js'), argv[0]) as Main;
cli.main(argv, skipCodeCache);
