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
import { resolveMcpServers } from "../mcp/config.ts";
import { mcpSources, type McpSpec } from "../mcp/sources.ts";
import { ruleVerdict } from "../permission/gate.ts";
import { flagsLayer } from "../permission/flags.ts";
import type { PermissionConfig } from "../permission/rules.ts";
import type { EngineSpec } from "../engine/types.ts";

export const MCP_SERVER_KEY = "mcp_server";

export interface ProjectServer {
  name: string;
  /** The file that defines it. */
  source: string;
  /** What would run: the command line, or the URL. */
  target: string;
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
  return ruleVerdict(layers, MCP_SERVER_KEY, name).action;
}
