import type * as vscode from 'vscode';
import { AGENT_TOOLS, parseToolInput, type AgentTool, type ToolTarget } from './agentTools';
import { errorMessage } from '../core/errors';

// The checkpoint tools (agentTools.ts) as VS Code language-model tools for Copilot agent mode and other chat
// participants (`contributes.languageModelTools` in package.json declares them), and the `checkpoint mcp` server for
// VS Code's own MCP support. Both are registered only where the running VS Code has the API: @types/vscode is kept at
// the `engines.vscode` floor (1.90), where neither exists, so their shapes are declared here, every part optional,
// and the compiler makes each use check first. Before an API is final, VS Code has it as a proposal whose functions
// throw for extensions that did not enable it (language-model tools in 1.93–1.94, the MCP provider in 1.100): a
// registration that throws counts as absent.

/** `vscode.LanguageModelTool` (VS Code 1.95). */
interface LanguageModelTool<T> {
  prepareInvocation?(
    options: { input: T },
    token: vscode.CancellationToken,
  ): vscode.ProviderResult<{ invocationMessage?: string | vscode.MarkdownString; confirmationMessages?: { title: string; message: string | vscode.MarkdownString } }>;
  invoke(options: { input: T }, token: vscode.CancellationToken): vscode.ProviderResult<unknown>;
}

/** The few parts of the `vscode` module used here (a unit test passes a stand-in). */
export interface LmApi {
  lm?: {
    /** VS Code 1.95. */
    registerTool?: (name: string, tool: LanguageModelTool<object>) => vscode.Disposable;
    /** VS Code 1.101. */
    registerMcpServerDefinitionProvider?: (id: string, provider: unknown) => vscode.Disposable;
  };
  /** VS Code 1.95. */
  LanguageModelToolResult?: new (content: unknown[]) => unknown;
  /** VS Code 1.95 (1.90 had a proposal of it). */
  LanguageModelTextPart?: new (value: string) => unknown;
  MarkdownString: typeof vscode.MarkdownString;
  /** VS Code 1.101. */
  McpStdioServerDefinition?: new (label: string, command: string, args?: string[], env?: Record<string, string | number | null>, version?: string) => unknown;
}

export interface LmToolHost {
  /** The folder a call names (`cwd`), or the current one, with writes recorded by the editor. */
  target(cwd: string | undefined): Promise<ToolTarget>;
  /** Where the folder's checkpoints are, for the confirmation text. */
  memoryDir(cwd: string | undefined): Promise<string>;
  log: (message: string) => void;
}

/**
 * Registers the tools of these names (package.json declares them; agentTools.ts defines them, loaded on the first
 * call); returns nothing to dispose, and logs why, where the running VS Code has no such API.
 */
export function registerLanguageModelTools(api: LmApi, host: LmToolHost, names: readonly string[]): vscode.Disposable[] {
  const registerTool = api.lm?.registerTool;
  const { LanguageModelToolResult: Result, LanguageModelTextPart: TextPart } = api;
  const absent = 'Language-model tools are not available in this VS Code: the checkpoint tools for chat agents are not registered';
  if (typeof registerTool !== 'function' || typeof Result !== 'function' || typeof TextPart !== 'function') {
    host.log(`${absent}.`);
    return [];
  }
  const result = (text: string): unknown => new Result([new TextPart(text)]);
  return registerAll(
    names.map((name) => () => registerTool(name, languageModelTool(api, host, name, result))),
    absent,
    host.log,
  );
}

/** Runs each registration; when one throws (a proposed API), none stays registered and the reason is logged. */
function registerAll(registrations: (() => vscode.Disposable)[], absent: string, log: (message: string) => void): vscode.Disposable[] {
  const registered: vscode.Disposable[] = [];
  try {
    for (const register of registrations) registered.push(register());
    return registered;
  } catch (err) {
    for (const d of registered) d.dispose();
    log(`${absent} (${errorMessage(err)}).`);
    return [];
  }
}

/** The tool of that name and the input check. */
async function agentTool(name: string): Promise<{ tool: AgentTool; parse: typeof parseToolInput }> {
  const tool = AGENT_TOOLS.find((t) => t.name === name);
  if (!tool) throw new Error(`There is no checkpoint tool named ${name}.`);
  return { tool, parse: parseToolInput };
}

function languageModelTool(api: LmApi, host: LmToolHost, name: string, result: (text: string) => unknown): LanguageModelTool<object> {
  return {
    async prepareInvocation(options) {
      const { tool, parse } = await agentTool(name);
      const invocationMessage = `${tool.title}…`;
      const confirmation = tool.confirmation;
      if (!confirmation) return { invocationMessage };
      const input = parse(tool, options.input);
      const c = confirmation(input, await host.memoryDir((input as { cwd?: string }).cwd));
      return { invocationMessage, confirmationMessages: { title: c.title, message: new api.MarkdownString().appendText(c.message) } };
    },
    async invoke(options) {
      const { tool, parse } = await agentTool(name);
      const input = parse(tool, options.input);
      try {
        return result(await tool.run(await host.target((input as { cwd?: string }).cwd), input));
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
export function registerMcpServerDefinition(
  api: LmApi,
  opts: { cliPath: string; nodePath: string; version: string; log?: (message: string) => void },
): vscode.Disposable[] {
  const register = api.lm?.registerMcpServerDefinitionProvider;
  const Definition = api.McpStdioServerDefinition;
  if (typeof register !== 'function' || typeof Definition !== 'function') return [];
  const provider = {
    // ELECTRON_RUN_AS_NODE: the editor's own runtime runs the CLI as plain Node.
    provideMcpServerDefinitions: () => [new Definition('Checkpoint', opts.nodePath, [opts.cliPath, 'mcp'], { ELECTRON_RUN_AS_NODE: '1' }, opts.version)],
  };
  return registerAll([() => register(MCP_PROVIDER_ID, provider)], 'The MCP server definition is not available in this VS Code', opts.log ?? (() => undefined));
}

export const MCP_PROVIDER_ID = 'checkpoint.mcpServer';

/** The tool names the manifest declares (`contributes.languageModelTools` in package.json). */
export function toolNames(manifest: unknown): string[] {
  const declared = (manifest as { contributes?: { languageModelTools?: unknown } } | undefined)?.contributes?.languageModelTools;
  return Array.isArray(declared) ? declared.map((t: { name?: unknown }) => t?.name).filter((n): n is string => typeof n === 'string') : [];
}
