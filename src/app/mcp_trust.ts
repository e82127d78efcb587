/**
 * MCP servers a project defines for itself — in its `.mcp.json` or the `mcp`
 * key of its own `skiff.json` — arrive with the repository, and a stdio
 * server is a program that runs as the user, outside the OS sandbox. This
 * module says which servers the project defines and what the user's own
 * rules (global config, flags) say of each; whether they start is the trust
 * decision's (project_trust.ts `decideProjectServers`). `--yes` is never that
 * word, as it is not for running commands unsandboxed.
 * Servers from the global config are the user's own and always start; a
 * project entry of the same name changes nothing of them (src/mcp/config.ts).
 */
import {
  type McpServerInput,
  type McpSourceOptions,
  type ResolvedMcpServers,
  resolveMcpServers,
} from "../mcp/config.ts";
import { checkSubject } from "../policy/evaluate.ts";
import { flagsLayer } from "../policy/flags.ts";
import type { PermissionConfig } from "../policy/rules.ts";
import type { EngineSpec } from "./engine_types.ts";

export const MCP_SERVER_KEY = "mcp_server";

/** The parts of a spec the MCP sources are read from. */
type McpSpec = Pick<EngineSpec, "workspace" | "config" | "mcp">;

export interface ProjectServer {
  name: string;
  /** The file that defines it. */
  source: string;
  /** What would run: the command line, or the URL. */
  target: string;
}

/**
 * Where the session's servers come from: the user's (`config.mcp`, the global
 * config's alone), the project's config file and `.mcp.json`; blocked
 * project servers switched off.
 */
export function mcpSources(spec: McpSpec): McpSourceOptions {
  const servers = { ...(spec.config.mcp ?? {}) } as Record<string, McpServerInput>;
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
export function sessionMcpServers(spec: EngineSpec): ResolvedMcpServers {
  return spec.mcp.resolved ?? resolveMcpServers(mcpSources(spec));
}

/** Servers the project defines, enabled, with what they would run. */
export function projectMcpServers(spec: McpSpec): ProjectServer[] {
  if (!spec.mcp.enabled) return [];
  const { servers } = resolveMcpServers(mcpSources(spec));
  return servers
    .filter((server) => server.enabled && server.origin === "project")
    .map((server) => ({
      name: server.name,
      source: server.source,
      target: server.transport === "stdio"
        ? [server.command, ...server.args].join(" ")
        : server.url,
    }));
}

/** The user's own verdict for one server: global config rules and command-line flags only. */
export function userVerdict(
  spec: Pick<EngineSpec, "permissionLayers" | "flags">,
  name: string,
): "allow" | "ask" | "deny" {
  const global = spec.permissionLayers.find((layer) => layer.source === "global");
  const layers = [
    ...(global
      ? [{ name: "global" as const, permission: global.permission as PermissionConfig }]
      : []),
    flagsLayer(spec.flags),
  ];
  return checkSubject(layers, MCP_SERVER_KEY, name).action;
}
