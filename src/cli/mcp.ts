import { defineCommand } from './command';
import { runMcpServer } from '../agent/mcpServer';

export const mcpCommand = defineCommand({
  synopsis: 'mcp',
  summary: 'serve save, list, show and resume as MCP tools over stdio (for AI agents)',
  help: `Usage: checkpoint mcp [--dir DIR] [--cwd DIR]

Serves the tools checkpoint_save, checkpoint_list, checkpoint_show and checkpoint_resume as an MCP server on
stdin/stdout for AI agents (Claude Code, Copilot, Cline, Cursor…), until the client disconnects. Each call uses
the project its "cwd" argument names, else --cwd, else the client's first root folder, else the current directory.
  --dir DIR   memory directory for every call
  --cwd DIR   project folder for calls that name none`,
  example: 'checkpoint mcp --cwd ~/work/project',
  exampleWhere: "an MCP server entry of an agent's settings",
  options: {},
  positionals: 0,
  async run(ctx) {
    return runMcpServer({ cwd: ctx.values.cwd !== undefined ? ctx.cwd : undefined, dir: ctx.values.dir, env: ctx.env });
  },
});
