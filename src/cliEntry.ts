// dist/cli.js, the `checkpoint` command. `checkpoint hook …` runs at every agent start and compaction, so it loads
// the hook's own small bundle (src/hookCli.ts → dist/hook.js); every other command loads the whole CLI
// (src/cli.ts → dist/cli-main.js). Nothing else happens here: both share one runner (src/cli/runner.ts).
type Main = { main(argv: string[]): void };

const argv = process.argv.slice(2);
const cli: Main = argv[0] === 'hook' ? (require('./hookCli') as Main) : (require('./cli') as Main);
cli.main(argv);
