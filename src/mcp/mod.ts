/** The MCP client, as the rest of skiff uses it. */
export {
  describeMcpState,
  McpManager,
  type McpManagerOptions,
  type McpServerState,
  type McpServerStatus,
} from "./manager.ts";
export {
  DEFAULT_CALL_TIMEOUT_MS,
  DEFAULT_CONNECT_TIMEOUT_MS,
  type McpServerConfig,
  type McpServerInput,
  resolveMcpServers,
} from "./config.ts";
export { buildServerEnvironment, INHERITED_VARIABLES } from "./environment.ts";
export { mcpToolName } from "./names.ts";
