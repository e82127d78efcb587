/**
 * MCP servers as tools. `config.ts` resolves the servers of a session from
 * the user's config, the project's (`sources.ts`: what the spec carries,
 * blocked servers switched off) and `.mcp.json`; `manager.ts` starts them
 * (a stdio server through the session's sandbox launcher,
 * `stdio_transport.ts`, with the environment of `environment.ts`), and
 * each connection (`connection.ts`) offers its tools under
 * `{server}_{tool}` names that may not take a built-in tool's name
 * (`reserved_names.ts`). A remote server's OAuth login (`oauth_login.ts`,
 * run by `skiff mcp login`) is kept by server URL (`oauth_store.ts`) and
 * sent and refreshed through the SDK's provider (`oauth_provider.ts`).
 * Whether a project's own servers start is the trust decision's (src/trust/).
 */
export { McpManager } from "./manager.ts";
export { resolveMcpServers } from "./config.ts";
export { mcpSources, sessionMcpServers } from "./sources.ts";
