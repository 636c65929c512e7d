// dist/cli.js, the `checkpoint` command. `checkpoint hook …` runs at every agent start and compaction, so it loads
// the hook's own small bundle (src/cli/hookEntry.ts → dist/hook.js); every other command loads the whole CLI
// (src/cli/main.ts → dist/cli-main.js), each with V8's code cache (src/cli/codeCache.ts). Both share one runner
// (src/cli/runner.ts).
import path = require('node:path');
import { requireCached } from './codeCache';

type Main = { main(argv: string[]): void };

const argv = process.argv.slice(2);
const hook = argv[0] === 'hook';
// One cache per command of the CLI; the hook's events share theirs (a command word that exits 2 writes none).
const cli = requireCached(path.join(__dirname, hook ? 'hook.js' : 'cli-main.js'), hook ? 'hook' : argv[0]) as Main;
cli.main(argv);
