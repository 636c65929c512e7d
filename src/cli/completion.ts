import { UsageError } from '../core/errors';
import { defineCommand, type Command, type Options } from './command';

/** The global options, as every command takes them (runner.ts parses them). */
const GLOBAL_FLAGS = ['--dir', '--cwd', '--json', '--help'];
const GLOBAL_VALUED = ['--dir', '--cwd'];

/** The commands whose arguments are checkpoint names (completed from `checkpoint list --names`). */
const TAKES_NAMES = new Set(['show', 'resume', 'delete', 'restore', 'combine', 'diff', 'branch', 'push']);

const flags = (options: Options): string[] => Object.keys(options).map((k) => `--${k}`);
const valued = (options: Options): string[] => Object.entries(options).filter(([, o]) => o.type === 'string').map(([k]) => `--${k}`);

/** A word for a shell script in single quotes (a command's summary may hold a quote). */
const quoted = (s: string): string => `'${s.replace(/'/g, `'\\''`)}'`;

function bashScript(commands: Record<string, Command>): string {
  const allValued = [...new Set([...GLOBAL_VALUED, ...Object.values(commands).flatMap((c) => valued(c.options))])];
  const cases = Object.entries(commands)
    .map(([name, c]) => `    ${name}) opts=${quoted([...flags(c.options), ...GLOBAL_FLAGS].join(' '))} ;;`)
    .join('\n');
  return `# checkpoint completion for bash (and zsh through bashcompinit). Load it with:
#   source <(checkpoint completion bash)
_checkpoint() {
  local cur=\${COMP_WORDS[COMP_CWORD]} cmd= opts= i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in
      ${allValued.join('|')}) ((i++)) ;;
      -*) ;;
      *) cmd=\${COMP_WORDS[i]}; break ;;
    esac
  done
  case $cmd in
    '') COMPREPLY=($(compgen -W ${quoted([...Object.keys(commands), '--help', '--version'].join(' '))} -- "$cur")); return ;;
${cases}
  esac
  case \${COMP_WORDS[COMP_CWORD-1]} in
    ${allValued.join('|')}) COMPREPLY=($(compgen -f -- "$cur")); return ;;
  esac
  if [[ $cur == -* ]]; then COMPREPLY=($(compgen -W "$opts" -- "$cur")); return; fi
  case $cmd in
    ${[...TAKES_NAMES].filter((n) => Object.hasOwn(commands, n)).join('|')}) COMPREPLY=($(compgen -W "$(checkpoint list --names 2>/dev/null)" -- "$cur")) ;;
    completion) COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur")) ;;
    help) COMPREPLY=($(compgen -W ${quoted(Object.keys(commands).join(' '))} -- "$cur")) ;;
  esac
}
complete -F _checkpoint checkpoint`;
}

function zshScript(commands: Record<string, Command>): string {
  return `# checkpoint completion for zsh. Load it with:
#   source <(checkpoint completion zsh)
autoload -U +X bashcompinit && bashcompinit
${bashScript(commands).split('\n').slice(2).join('\n')}`;
}

function fishScript(commands: Record<string, Command>): string {
  const lines = [
    '# checkpoint completion for fish. Load it with:',
    '#   checkpoint completion fish | source',
    'complete -c checkpoint -f',
    `complete -c checkpoint -n __fish_use_subcommand -l version -d ${quoted('print the version')}`,
    `complete -c checkpoint -l dir -r -F -d ${quoted('memory directory')}`,
    `complete -c checkpoint -l cwd -r -F -d ${quoted('workspace folder')}`,
    `complete -c checkpoint -l json -d ${quoted('machine-readable output')}`,
    `complete -c checkpoint -s h -l help -d ${quoted('help')}`,
  ];
  for (const [name, c] of Object.entries(commands)) {
    lines.push(`complete -c checkpoint -n __fish_use_subcommand -a ${name} -d ${quoted(c.summary)}`);
    for (const [k, o] of Object.entries(c.options)) {
      lines.push(`complete -c checkpoint -n ${quoted(`__fish_seen_subcommand_from ${name}`)} -l ${k}${o.type === 'string' ? ' -r' : ''}`);
    }
  }
  const named = [...TAKES_NAMES].filter((n) => Object.hasOwn(commands, n)).join(' ');
  lines.push(`complete -c checkpoint -n ${quoted(`__fish_seen_subcommand_from ${named}`)} -a ${quoted('(checkpoint list --names 2>/dev/null)')}`);
  lines.push(`complete -c checkpoint -n ${quoted('__fish_seen_subcommand_from completion')} -a ${quoted('bash zsh fish')}`);
  return lines.join('\n');
}

const SHELLS = { bash: bashScript, zsh: zshScript, fish: fishScript };

/** `checkpoint completion <shell>`, over the command table `commands()` gives (the CLI's own). */
export function completionCommand(commands: () => Record<string, Command>): Command {
  return defineCommand({
    synopsis: 'completion <shell>',
    summary: 'print shell completion for bash, zsh or fish',
    help: `Usage: checkpoint completion bash|zsh|fish

Prints a script that completes checkpoint's commands, options and checkpoint names in the shell.
  bash   source <(checkpoint completion bash)      (in ~/.bashrc)
  zsh    source <(checkpoint completion zsh)       (in ~/.zshrc)
  fish   checkpoint completion fish | source       (in ~/.config/fish/config.fish)`,
    example: 'checkpoint completion bash > ~/.local/share/bash-completion/completions/checkpoint',
    options: {},
    positionals: 1,
    async run(ctx) {
      const shell = ctx.positionals[0] ?? '';
      if (!Object.hasOwn(SHELLS, shell)) throw new UsageError(`A shell is required: checkpoint completion bash|zsh|fish${shell ? ` (not "${shell}")` : ''}`);
      ctx.io.out(SHELLS[shell as keyof typeof SHELLS](commands()));
    },
  });
}
