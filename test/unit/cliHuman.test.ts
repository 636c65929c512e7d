// The command line as a person (and an agent) meets it: messages that name real commands, "did you mean", questions
// before what is hard to undo (asked on a real pseudo-terminal), help with every option and an example, completion.
import { after, test } from 'node:test';
import * as assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import * as path from 'node:path';
import { CLI, git, isolatedEnv, makeRepo, removeDir, runCliInProcess, runCliSync, tempDirs, type ProcessResult } from '../support/fixtures';
import { shellQuote } from '../../src/core/escaping';
import { nearest } from '../../src/core/suggest';

const temp = tempDirs();
const home = temp('checkpoint-home-');
after(() => removeDir(home));
const env = isolatedEnv(home);

/** The CLI's commands, run in this process (the terminal's questions and the version run the built CLI). */
const cli = (cwd: string, args: string[]): Promise<ProcessResult> => runCliInProcess(args, { cwd, env });

/** A repository with a memory folder; `d` is the --dir option for it. */
function setup(): { repo: string; mem: string; d: string[] } {
  const repo = makeRepo({ dir: temp('checkpoint-repo-') });
  const mem = path.join(repo, '..', `${path.basename(repo)}-mem`);
  return { repo, mem, d: ['--dir', mem] };
}

const SCRIPT = spawnSync('script', ['--version'], { encoding: 'utf8' });
const noPty = SCRIPT.error || !/util-linux/.test(SCRIPT.stdout) ? 'needs util-linux script(1) for a pseudo-terminal' : false;

/**
 * Runs the CLI on a pseudo-terminal (util-linux script(1)): stdin, stdout and stderr are a terminal, and `input` is
 * what is typed (given at once; the terminal holds it until the CLI reads). Output is stdout and stderr together.
 */
function onTerminal(cwd: string, args: string[], input: string): { code: number | null; out: string } {
  const line = [process.execPath, CLI, ...args].map(shellQuote).join(' ');
  const r = spawnSync('script', ['-qec', line, '/dev/null'], { cwd, env, input, encoding: 'utf8', timeout: 30_000 });
  return { code: r.status, out: r.stdout.replace(/\r\n/g, '\n') };
}

test('nearest: close names by edits, and what was typed as a prefix; nothing for what is far', () => {
  assert.deepEqual(nearest('my-featur', ['my-feature', 'other', 'my-fix']), ['my-feature']);
  assert.deepEqual(nearest('sav', ['save', 'show', 'list']), ['save']);
  assert.deepEqual(nearest('resme', ['resume', 'restore', 'save']), ['resume']);
  assert.deepEqual(nearest('xyz', ['save', 'list']), []);
  assert.deepEqual(nearest('Save', ['save']), [], 'the name itself is no suggestion');
});

test('did you mean: a mistyped checkpoint, command, option or trashed checkpoint names the nearest', async () => {
  const { repo, d } = setup();
  assert.equal((await cli(repo, ['save', 'my-feature', '--left-off', 'x', ...d])).code, 0);
  for (const command of ['resume', 'show', 'delete', 'diff']) {
    const r = await cli(repo, [command, 'my-featur', ...d]);
    assert.equal(r.code, 1);
    assert.match(r.err, /^checkpoint: No checkpoint named "my-featur" in .*\. Did you mean "my-feature"\?$/m, command);
  }
  const sav = await cli(repo, ['sav', 'x']);
  assert.equal(sav.code, 2);
  assert.match(sav.err, /^checkpoint: Unknown command "sav"\. Did you mean "save"\?$/m);
  const option = await cli(repo, ['save', 'x', '--left-of', 'y', ...d]);
  assert.equal(option.code, 2);
  assert.match(option.err, /Unknown option --left-of for checkpoint save \[<name>\]\. Did you mean --left-off\?/);
  assert.equal((await cli(repo, ['delete', 'my-feature', ...d])).code, 0);
  const restore = await cli(repo, ['restore', 'my-featur', ...d]);
  assert.match(restore.err, /No trashed checkpoint named "my-featur" .* Did you mean "my-feature"\?/);
});

test('messages name real commands: save says how to resume; resume says where the checkpoint went and how to undo', async () => {
  const { repo, mem, d } = setup();
  const saved = await cli(repo, ['save', 'oauth', '--left-off', 'Wiring callback', ...d]);
  assert.match(saved.out, new RegExp(`Resume anytime: checkpoint resume oauth --dir ${mem.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')} \\(or tell your agent: continue oauth\\)`));
  assert.doesNotMatch(saved.out, /`continue/);
  const resumed = await cli(repo, ['resume', 'oauth', ...d]);
  assert.equal(resumed.code, 0, resumed.err);
  assert.match(resumed.out, /\nMoved to the trash: .*\.trash.*checkpoint-oauth\.md\nTo undo: checkpoint restore oauth --dir /);
  const undo = resumed.out.split('To undo: ')[1].trim().split(' ');
  assert.equal((await cli(repo, undo.slice(1))).code, 0, 'the undo line runs');
  assert.ok(existsSync(path.join(mem, 'checkpoint-oauth.md')));
});

test('one voice: every error is "checkpoint: " and a sentence; none of Node\'s parser text', async () => {
  const { repo, d } = setup();
  const cases = [['frobnicate'], ['save', 'x', '--left-off'], ['save', 'x', '--force=yes'], ['save', 'x', '--left-off', '-x'], ['list', 'extra'], ['show'], ['--nope'], ['-x']];
  for (const args of cases) {
    const r = await cli(repo, [...args, ...(args[0]?.startsWith('-') ? [] : d)]);
    assert.equal(r.code, 2, `${args.join(' ')}: ${r.err}`);
    assert.match(r.err, /^checkpoint: [A-Z-]/, args.join(' '));
    assert.doesNotMatch(r.err, /ERR_PARSE_ARGS|To specify|Option '|argument is ambiguous|a command is required/, args.join(' '));
  }
  assert.match((await cli(repo, ['save', 'x', '--left-off'])).err, /--left-off needs a value/);
  assert.match((await cli(repo, ['save', 'x', '--force=yes'])).err, /--force takes no value/);
  assert.match((await cli(repo, ['--nope'])).err, /Unknown option --nope: options other than --help and --version go after a command/);
});

test('-v, -V and --version print the version, and the help lists --version', async () => {
  const pkg = JSON.parse(readFileSync(path.resolve(__dirname, '..', '..', '..', 'package.json'), 'utf8')) as { version: string };
  for (const flag of ['-v', '-V', '--version']) {
    const r = runCliSync([flag], { cwd: home, env });
    assert.equal(r.code, 0, flag);
    assert.equal(r.out.trim(), pkg.version, flag);
  }
  assert.match((await cli(home, ['--help'])).out, /-v, --version/);
});

test('every command\'s --help describes each of its options and ends with an example', async () => {
  const bash = (await cli(home, ['completion', 'bash'])).out;
  const commands = [...bash.matchAll(/^ {4}([a-z]+)\) opts='([^']*)' ;;$/gm)].map((m) => ({ name: m[1], options: m[2].split(' ').filter((o) => !['--dir', '--cwd', '--json', '--help'].includes(o)) }));
  assert.ok(commands.length >= 18, `${commands.length} commands`);
  for (const { name, options } of commands) {
    const help = (await cli(home, [name, '--help'])).out;
    for (const o of options) assert.match(help, new RegExp(`\\n {2}${o}\\b`), `${name} --help describes ${o}`);
    assert.match(help, /\n\nExample[^\n]*:\n {2}checkpoint \S/, `${name} --help has an example`);
  }
});

test('save without --left-off: on a terminal it asks, and an empty answer saves nothing; elsewhere a warning', { skip: noPty }, async () => {
  const { repo, mem, d } = setup();
  const piped = await cli(repo, ['save', 'quiet', ...d]);
  assert.equal(piped.code, 0);
  assert.match(piped.err, /^Warning: No --left-off: the checkpoint does not say where work stopped/m);
  const answered = onTerminal(repo, ['save', 'asked', ...d], 'Tests pass; next: docs\n');
  assert.equal(answered.code, 0, answered.out);
  assert.match(answered.out, /Left off \(where work stopped, and the next step\): /);
  assert.match(readFileSync(path.join(mem, 'checkpoint-asked.md'), 'utf8'), /## Left Off\nTests pass; next: docs\n/);
  const empty = onTerminal(repo, ['save', 'empty', ...d], '\n');
  assert.equal(empty.code, 1, empty.out);
  assert.match(empty.out, /Nothing saved/);
  assert.equal(existsSync(path.join(mem, 'checkpoint-empty.md')), false);
});

test('delete --all asks on a terminal and names what it moved; --yes and a pipe do not ask', { skip: noPty }, async () => {
  const { repo, mem, d } = setup();
  for (const n of ['alpha', 'beta']) assert.equal((await cli(repo, ['save', n, '--left-off', n, ...d])).code, 0);
  const no = onTerminal(repo, ['delete', '--all', ...d], 'n\n');
  assert.equal(no.code, 1, no.out);
  assert.match(no.out, /Move 2 checkpoint\(s\) to the trash: beta, alpha\? \[y\/N\]/);
  assert.match(no.out, /checkpoint: Nothing done\./);
  assert.deepEqual(readdirSync(mem).filter((f) => f.startsWith('checkpoint-')).sort(), ['checkpoint-alpha.md', 'checkpoint-beta.md']);
  const yes = onTerminal(repo, ['delete', '--all', ...d], 'y\n');
  assert.equal(yes.code, 0, yes.out);
  assert.match(yes.out, /Moved 2 checkpoint\(s\) to the trash: (beta, alpha|alpha, beta)\.\nTo undo: checkpoint restore --all --dir /);
  // The trash lists them; restore --all asks, then puts them back.
  const trash = await cli(repo, ['trash', ...d]);
  assert.match(trash.out, /^alpha {2}\d{4}-\d\d-\d\d {2}.*checkpoint-alpha\.md$/m);
  const restored = onTerminal(repo, ['restore', '--all', ...d], 'y\n');
  assert.equal(restored.code, 0, restored.out);
  assert.match(restored.out, /Restore 2 checkpoint\(s\) from the trash: .*\? \[y\/N\]/);
  assert.ok(existsSync(path.join(mem, 'checkpoint-alpha.md')) && existsSync(path.join(mem, 'checkpoint-beta.md')));
  const skipped = onTerminal(repo, ['delete', '--all', '--yes', ...d], '');
  assert.equal(skipped.code, 0, skipped.out);
  assert.doesNotMatch(skipped.out, /\[y\/N\]/);
  assert.equal((await cli(repo, ['restore', '--all', ...d])).code, 0, 'a pipe: no question');
  assert.match((await cli(repo, ['delete', '--all', ...d])).out, /Moved 2 checkpoint/);
});

test('gc --dry-run names what would go and removes nothing; gc asks on a terminal', { skip: noPty }, async () => {
  const { repo, mem, d } = setup();
  assert.equal((await cli(repo, ['save', 'old', '--left-off', 'x', ...d])).code, 0);
  assert.equal((await cli(repo, ['delete', 'old', ...d])).code, 0);
  const dry = await cli(repo, ['gc', '--older-than', '0', '--dry-run', ...d]);
  assert.equal(dry.code, 0, dry.err);
  assert.match(dry.out.trimEnd(), /^Would purge 1 trashed checkpoint\(s\) from the trash:\n {2}.*checkpoint-old\.md\nWould remove 1 snapshot ref\(s\):\n {2}refs\/checkpoints\/snapshots\/old$/);
  assert.equal((await cli(repo, ['trash', '--json', ...d])).out.includes('checkpoint-old.md'), true, 'still in the trash');
  assert.match(git(repo, 'for-each-ref', 'refs/checkpoints/'), /snapshots\/old/);
  const no = onTerminal(repo, ['gc', '--older-than', '0', ...d], 'n\n');
  assert.equal(no.code, 1, no.out);
  assert.match(no.out, /Delete 1 trashed checkpoint\(s\) for good:\n {2}.*checkpoint-old\.md\n\? \[y\/N\]/);
  const yes = onTerminal(repo, ['gc', '--older-than', '0', ...d], 'y\n');
  assert.equal(yes.code, 0, yes.out);
  assert.match((await cli(repo, ['trash', ...d])).out, /The trash is empty\./);
  assert.equal(existsSync(mem), true);
});

test('diff of a combined checkpoint says why it has no snapshot, and which command would help', async () => {
  const { repo, d } = setup();
  for (const n of ['api', 'ui']) assert.equal((await cli(repo, ['save', n, '--left-off', n, ...d])).code, 0);
  assert.equal((await cli(repo, ['combine', 'both', 'api', 'ui', ...d])).code, 0);
  const r = await cli(repo, ['diff', 'both', ...d]);
  assert.equal(r.code, 1);
  assert.match(r.err, /Checkpoint "both" was combined from "(api|ui)", "(api|ui)": a combined checkpoint has no code snapshot of its own\. .*checkpoint diff (api|ui)\b/);
  assert.doesNotMatch(r.err, /--no-snapshot|outside git/);
});

test('branch <name> [<branch>]: the branch is named as asked; the default stays checkpoint/<name>', async () => {
  const { repo, d } = setup();
  writeFileSync(path.join(repo, 'wip.ts'), 'x\n');
  assert.equal((await cli(repo, ['save', 'api', '--left-off', 'x', ...d])).code, 0);
  const named = await cli(repo, ['branch', 'api', 'api-wip', ...d]);
  assert.equal(named.code, 0, named.err);
  assert.match(named.out, /Created branch api-wip at /);
  assert.equal(git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/api-wip').trim().length, 40);
  assert.equal((await cli(repo, ['branch', 'api', ...d])).code, 0);
  assert.equal(git(repo, 'rev-parse', '--verify', '-q', 'refs/heads/checkpoint/api').trim().length, 40);
  assert.equal((await cli(repo, ['branch', 'api', '--bad', ...d])).code, 2);
  assert.equal((await cli(repo, ['branch', 'api', '-x', ...d])).code, 2, 'a branch name is never an option');
});

test('list: aligned columns with the plan step; show renders as resume does, --raw the file', async () => {
  const { repo, d } = setup();
  const plan = path.join(repo, 'plan.md');
  writeFileSync(plan, '- [x] one\n- [ ] two\n- [ ] three\n');
  assert.equal((await cli(repo, ['save', 'a-long-checkpoint-name', '--left-off', 'first', '--plan', plan, ...d])).code, 0);
  git(repo, 'checkout', '-q', '-b', 'feature/x');
  assert.equal((await cli(repo, ['save', 'b', '--left-off', 'second', '--failed', 'tried y', ...d])).code, 0);
  const rows = (await cli(repo, ['list', ...d])).out.trimEnd().split('\n');
  assert.equal(rows.length, 2);
  assert.equal(rows[0].indexOf('feature/x'), rows[1].indexOf('main'), 'the branch column is aligned');
  assert.match(rows[1], /step 2 of 3 {2}first$/);
  assert.equal(rows[0].indexOf('second'), rows[1].indexOf('first'), 'the summary column is aligned');
  assert.deepEqual((await cli(repo, ['list', '--names', ...d])).out.split('\n').filter(Boolean), ['b', 'a-long-checkpoint-name']);
  const shown = (await cli(repo, ['show', 'b', ...d])).out;
  assert.equal(shown, (await cli(repo, ['resume', 'b', '--keep', ...d])).out, 'show prints what resume --keep prints');
  assert.match(shown, /^Left off:\nsecond$/m);
  assert.match(shown, /⚠ Previously failed: tried y/);
  assert.match((await cli(repo, ['show', 'b', '--raw', ...d])).out, /^---\n[^]*## Left Off\nsecond\n/);
});

test('completion: bash completes commands, options and checkpoint names; zsh and fish scripts come from the same table', async () => {
  const { repo, d } = setup();
  assert.equal((await cli(repo, ['save', 'oauth-flow', '--left-off', 'x', ...d])).code, 0);
  const script = (await cli(repo, ['completion', 'bash'])).out;
  const complete = (words: string[]): string[] => {
    // Completing names runs `checkpoint`: a shim on PATH runs this build with the test's memory folder.
    const shim = `checkpoint() { ${shellQuote(process.execPath)} ${shellQuote(CLI)} "$@" ${d.map(shellQuote).join(' ')}; }`;
    const r = spawnSync('bash', ['-c', `${shim}\n${script}\nCOMP_WORDS=(${words.map(shellQuote).join(' ')}); COMP_CWORD=${words.length - 1}; _checkpoint; printf '%s\\n' "\${COMPREPLY[@]}"`], {
      cwd: repo,
      env,
      encoding: 'utf8',
      timeout: 30_000,
    });
    return r.stdout.split('\n').filter(Boolean);
  };
  assert.deepEqual(complete(['checkpoint', 'sa']), ['save']);
  assert.deepEqual(complete(['checkpoint', 'save', '--left-o']), ['--left-off']);
  assert.deepEqual(complete(['checkpoint', 'resume', 'oa']), ['oauth-flow']);
  assert.deepEqual(complete(['checkpoint', '--dir', 'x', 'sho']), ['show']);
  assert.deepEqual(complete(['checkpoint', 'completion', 'f']), ['fish']);
  assert.match((await cli(repo, ['completion', 'zsh'])).out, /bashcompinit[^]*complete -F _checkpoint checkpoint/);
  assert.match((await cli(repo, ['completion', 'fish'])).out, /complete -c checkpoint -n __fish_use_subcommand -a save -d /);
  assert.equal((await cli(repo, ['completion', 'tcsh'])).code, 2);
});

test('a usage error names what was typed on one line: a line break or control character in it cannot start a line of its own', async () => {
  const { repo, d } = setup();
  for (const args of [['list', 'a\nWarning: fake', ...d], ['sav\nWarning: fake', ...d], ['list', '--nope\nWarning: fake', ...d], ['save', 'x', '--left-off', ...d.slice(0, 0), '--\u001b[2Jx']]) {
    const r = await cli(repo, args);
    assert.equal(r.code, 2, `${JSON.stringify(args)}: ${r.err}`);
    assert.doesNotMatch(r.err, /^Warning: fake/m, JSON.stringify(args));
    assert.ok(!r.err.includes('\u001b'), JSON.stringify(args));
  }
});
