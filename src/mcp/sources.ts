/**
 * Where a session's MCP servers come from, as the session's spec carries
 * them: the user's entries (config `mcp`, the global config's alone), the
 * project's config file and `.mcp.json`, and the servers the trust decision
 * blocked (src/trust/project_trust.ts), switched off here.
 */
import {
  type McpServerInput,
  type McpSourceOptions,
  type ResolvedMcpServers,
  resolveMcpServers,
} from "./config.ts";

/** The `mcp` part of a session's spec (src/engine/types.ts). */
export interface SessionMcp {
  enabled: boolean;
  /** The variables MCP server entries may use (allowlist + `${NAME}` references). */
  env: Record<string, string>;
  /** Servers not to start: project-defined ones the user did not allow (src/trust/mcp_trust.ts). */
  blocked: string[];
  /** The user's own entries: the global config's `mcp`, never the project's. */
  userServers?: Record<string, unknown>;
  /** The project config file's own `mcp` entries (the user's are `userServers`). */
  project?: { file: string; root: string; servers: Record<string, unknown> };
  /** Names `${VAR}` may expand to in a server the project defines. */
  projectVariables?: string[];
  /**
   * The servers, resolved once by the host from the entries above (blocked
   * ones switched off): the Worker's permissions and the MCP client both
   * use these (`sessionMcpServers`).
   */
  resolved?: ResolvedMcpServers;
}

/** The parts of a spec the MCP sources are read from. */
export interface McpSpec {
  workspace: string;
  mcp: SessionMcp;
}

/** The session's sources, blocked project servers switched off. */
export function mcpSources(spec: McpSpec): McpSourceOptions {
  const servers = { ...(spec.mcp.userServers ?? {}) } as Record<string, McpServerInput>;
  for (const name of spec.mcp.blocked) servers[name] = { ...servers[name], enabled: false };
  const project = spec.mcp.project;
  return {
    workspace: spec.workspace,
    configServers: servers,
    projectServers: project
      ? { ...project, servers: project.servers as Record<string, McpServerInput> }
      : undefined,
    projectVariables: spec.mcp.projectVariables,
    env: (name) => spec.mcp.env[name],
  };
}

/**
 * The session's servers: resolved once, by `prepare()` in the host, and read
 * from the spec after that, in the host (the Worker's permissions) and in
 * the Worker (the MCP client). A spec made without `prepare()` (a test's) is
 * resolved here.
 */
export function sessionMcpServers(spec: McpSpec): ResolvedMcpServers {
  return spec.mcp.resolved ?? resolveMcpServers(mcpSources(spec));
}
