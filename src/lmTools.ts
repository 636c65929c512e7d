import type * as vscode from 'vscode';
import { AGENT_TOOLS, parseToolInput, type AgentTool, type ToolTarget } from './agentTools';
import { errorMessage } from './core/errors';

// The checkpoint tools (agentTools.ts) as VS Code language-model tools for Copilot agent mode and other chat
// participants (`contributes.languageModelTools` in package.json declares them), and the `checkpoint mcp` server for
// VS Code's own MCP support. Both are registered only where the running VS Code has the API.

/** The few parts of the `vscode` module used here (a unit test passes a stand-in). */
export interface LmApi {
  lm?: Partial<Pick<typeof vscode.lm, 'registerTool'>> & { registerMcpServerDefinitionProvider?: (id: string, provider: unknown) => vscode.Disposable };
  LanguageModelToolResult: typeof vscode.LanguageModelToolResult;
  LanguageModelTextPart: typeof vscode.LanguageModelTextPart;
  MarkdownString: typeof vscode.MarkdownString;
  McpStdioServerDefinition?: new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => unknown;
}

export interface LmToolHost {
  /** The folder a call names (`cwd`), or the current one, with writes recorded by the editor. */
  target(cwd: string | undefined): Promise<ToolTarget>;
  /** Where the folder's checkpoints are, for the confirmation text. */
  memoryDir(cwd: string | undefined): Promise<string>;
  log: (message: string) => void;
}

/** Registers the four tools; returns nothing to dispose where `vscode.lm.registerTool` does not exist. */
export function registerLanguageModelTools(api: LmApi, host: LmToolHost): vscode.Disposable[] {
  const registerTool = api.lm?.registerTool;
  if (typeof registerTool !== 'function') {
    host.log('Language-model tools are not available in this VS Code: the checkpoint tools for chat agents are not registered.');
    return [];
  }
  return AGENT_TOOLS.map((tool) => registerTool(tool.name, languageModelTool(api, host, tool)));
}

function languageModelTool(api: LmApi, host: LmToolHost, tool: AgentTool): vscode.LanguageModelTool<object> {
  const confirmation = tool.confirmation;
  return {
    async prepareInvocation(options) {
      const invocationMessage = `${tool.title}…`;
      if (!confirmation) return { invocationMessage };
      const input = parseToolInput(tool, options.input);
      const c = confirmation(input, await host.memoryDir((input as { cwd?: string }).cwd));
      return { invocationMessage, confirmationMessages: { title: c.title, message: new api.MarkdownString().appendText(c.message) } };
    },
    async invoke(options) {
      const input = parseToolInput(tool, options.input);
      try {
        const text = await tool.run(await host.target((input as { cwd?: string }).cwd), input);
        return new api.LanguageModelToolResult([new api.LanguageModelTextPart(text)]);
      } catch (err) {
        // The model reads the message and can act on it (another name, force, one of the listed names).
        throw new Error(errorMessage(err), { cause: err });
      }
    },
  };
}

/**
 * Offers `checkpoint mcp` to VS Code's MCP support (`contributes.mcpServerDefinitionProviders`), where the API
 * exists (VS Code 1.101 and later). The server resolves each call's project from VS Code's workspace folders (roots).
 */
export function registerMcpServerDefinition(api: LmApi, opts: { cliPath: string; nodePath: string; version: string }): vscode.Disposable[] {
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') return [];
  return [
    register(MCP_PROVIDER_ID, {
      // ELECTRON_RUN_AS_NODE: the editor's own runtime runs the CLI as plain Node.
      provideMcpServerDefinitions: () => [new Definition('Checkpoint', opts.nodePath, [opts.cliPath, 'mcp'], { ELECTRON_RUN_AS_NODE: '1' }, opts.version)],
    }),
  ];
}

export const MCP_PROVIDER_ID = 'checkpoint.mcpServer';
