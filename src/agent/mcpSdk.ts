// What the MCP server takes from the MCP SDK, in one module: the SDK (and its own zod) is built apart into
// dist/mcpSdk.js (scripts/build.mjs), which only `checkpoint mcp` reads.
export { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
export { StdioServerTransport } from '@modelcontextprotocol/sdk/server/stdio.js';
export { RootsListChangedNotificationSchema } from '@modelcontextprotocol/sdk/types.js';
