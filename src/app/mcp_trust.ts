/**
 * MCP servers a project defines for itself — in its `.mcp.json` or the `mcp`
 * key of its own `skiff.json` — arrive with the repository, and a stdio
 * server is a program that runs as the user, outside the OS sandbox. So they
 * start only on the user's word: a rule in the global config or on the
 * command line (`--allow 'mcp_server(name)'`), or a yes at the terminal.
 * `--yes` is not that word, as it is not for running commands unsandboxed.
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
import type { ApprovalAnswer, ApprovalRequest, EngineSpec } from "./engine_types.ts";
import { approves } from "../policy/broker.ts";

export const MCP_SERVER_KEY = "mcp_server";

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
export function mcpSources(spec: EngineSpec): McpSourceOptions {
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
export function projectMcpServers(spec: EngineSpec): ProjectServer[] {
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
export function userVerdict(spec: EngineSpec, name: string): "allow" | "ask" | "deny" {
  const global = spec.permissionLayers.find((layer) => layer.source === "global");
  const layers = [
    ...(global
      ? [{ name: "global" as const, permission: global.permission as PermissionConfig }]
      : []),
    flagsLayer(spec.flags),
  ];
  return checkSubject(layers, MCP_SERVER_KEY, name).action;
}

/**
 * Decide which project servers start. Blocked names go into
 * `spec.mcp.blocked`, each with a warning saying how to allow it.
 * `ask` is given only when a person is at the terminal.
 */
export async function decideProjectServers(
  spec: EngineSpec,
  servers: ProjectServer[],
  ask?: (request: ApprovalRequest) => Promise<ApprovalAnswer>,
): Promise<void> {
  for (const server of servers) {
    const verdict = userVerdict(spec, server.name);
    if (verdict === "allow") continue;
    if (verdict === "ask" && ask) {
      const answer = await ask({
        tool: "mcp",
        access: {
          key: MCP_SERVER_KEY,
          patterns: [server.name],
          preview:
            `${server.target}\n\ndefined by ${server.source}; it runs as you, outside the sandbox`,
        },
        decision: {
          action: "ask",
          reason: `start the project's MCP server "${server.name}"?`,
          checks: [],
        },
        always: [],
      });
      if (approves(answer)) continue;
    }
    spec.mcp.blocked.push(server.name);
    spec.warnings.push(
      verdict === "deny"
        ? `MCP server "${server.name}" (${server.source}) is not started: a rule denies it.`
        : `MCP server "${server.name}" is defined by the project (${server.source}) and would run as you, outside the sandbox: not started. Allow it with --allow 'mcp_server(${server.name})', or add "permission": {"mcp_server": {"${server.name}": "allow"}} to your global config.`,
    );
  }
}
