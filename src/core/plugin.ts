import { plannedHooks } from './claudeSettingsHooks';
import { skillText } from './skill';

/**
 * The Claude Code plugin (`npm run package:plugin`, and the npm package, which is the same folder): its text files.
 * The hooks and the skill are Connect's own (the same events, matcher and skill text), run through
 * `bin/checkpoint`, a small sh wrapper that runs the bundled CLI with the Node.js on PATH.
 */

/** Where Claude Code puts the plugin's folder, as the plugin's files name it. */
const ROOT = '${CLAUDE_PLUGIN_ROOT}';
/** The plugin's command as a shell word in hooks and in the skill. */
const PLUGIN_PROGRAM = `"${ROOT}/bin/checkpoint"`;
/** The PNG icon, rendered from media/icon.svg. */
export const PLUGIN_ICON = 'media/plugin-icon.png';
/** The plugin's name in Claude Code (its skill is `checkpoint:checkpoint`), and the name of its own marketplace. */
const PLUGIN = 'checkpoint';

interface PackageInfo {
  name: string;
  version: string;
  description: string;
  license: string;
  author: string;
}

/**
 * Without Node.js a hook does nothing and exits 0 (Claude Code goes on), so a session never fails for it; the
 * skill's and the MCP server's runs fail with the reason.
 */
const WRAPPER = `#!/bin/sh
# checkpoint, as the Claude Code plugin runs it: the CLI bundled beside this file, with Node.js 20+ from PATH.
root="\${0%/*}/.."
if ! command -v node >/dev/null 2>&1; then
  echo "checkpoint: Node.js 20 or later is needed on PATH (https://nodejs.org); nothing done." >&2
  [ "$1" = hook ] && exit 0
  exit 127
fi
exec node "$root/dist/cli.js" "$@"
`;

function readme(pkg: PackageInfo): string {
  return `# Checkpoint for Claude Code

${pkg.description}

A checkpoint is a short note of where work stopped: branch, plan step, what was done, which approaches failed
and which files were touched. It is saved as \`checkpoint-<name>.md\` in Claude Code's memory folder and indexed
in its \`MEMORY.md\`, so the next session reads it.

- **At every start** (a new session, resume, clear, compact, fork) Claude Code is told about the checkpoint waiting to be resumed.
- **When it compacts its context** a checkpoint \`auto-<date>\` is saved, holding the compaction's summary of the work.
- **"save checkpoint [name]"** and **"continue [name]"** work in the chat (the \`checkpoint\` skill).
- An MCP server (\`checkpoint mcp\`) gives the agent the same operations as tools.

## Install

This folder is the plugin, and a marketplace of this one plugin (\`.claude-plugin/marketplace.json\`). For one
session, from the zip or the folder:

\`\`\`
claude --plugin-dir ${pkg.name}-plugin-${pkg.version}.zip
\`\`\`

To keep it installed, from the folder (the zip unpacked):

\`\`\`
claude plugin marketplace add /path/to/this/folder
claude plugin install ${PLUGIN}@${PLUGIN}
\`\`\`

or \`/plugin marketplace add /path/to/this/folder\` and \`/plugin install ${PLUGIN}@${PLUGIN}\` inside Claude Code.

Needs **Node.js 20 or later on PATH**: the plugin carries its command line (\`bin/checkpoint\`) and runs it with
Node. Without Node the hooks do nothing and never stop a session.

The VS Code extension of the same name shows, saves and resumes the same checkpoints.

License: ${pkg.license}.
`;
}

/** The plugin's text files by their path in the plugin folder (LICENSE, the icon and dist/ are copied beside). */
export function pluginFiles(pkg: PackageInfo): Record<string, string> {
  const json = (v: unknown): string => JSON.stringify(v, null, 2) + '\n';
  const keywords = ['checkpoint', 'memory', 'resume', 'handoff'];
  const hooks: Record<string, unknown[]> = {};
  for (const h of plannedHooks(`sh ${PLUGIN_PROGRAM}`)) {
    hooks[h.event] = [{ ...(h.matcher ? { matcher: h.matcher } : {}), hooks: [{ type: 'command', command: h.command, timeout: h.timeout }] }];
  }
  return {
    '.claude-plugin/plugin.json': json({
      name: PLUGIN,
      version: pkg.version,
      description: pkg.description,
      author: { name: pkg.author },
      license: pkg.license,
      keywords,
      icon: `./${PLUGIN_ICON}`,
    }),
    // The folder as a local marketplace: `claude plugin marketplace add <folder>`, then `plugin install`.
    '.claude-plugin/marketplace.json': json({
      name: PLUGIN,
      owner: { name: pkg.author },
      metadata: { description: 'Checkpoint for Claude Code: remember where you left off.', version: pkg.version },
      plugins: [{ name: PLUGIN, description: pkg.description, version: pkg.version, source: './', license: pkg.license, category: 'productivity', keywords }],
    }),
    'hooks/hooks.json': json({ hooks }),
    'skills/checkpoint/SKILL.md': skillText(PLUGIN_PROGRAM),
    '.mcp.json': json({ mcpServers: { checkpoint: { command: 'sh', args: [`${ROOT}/bin/checkpoint`, 'mcp'] } } }),
    'bin/checkpoint': WRAPPER,
    'README.md': readme(pkg),
  };
}
