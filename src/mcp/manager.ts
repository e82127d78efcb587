/**
 * Starts the session's MCP servers, offers their tools as skiff tools named
 * `{server}_{tool}`, reports how each server is doing, and stops them all
 * with the session. Every call still goes through the policy table under the
 * tool's full name: `declare` names it, the session decides.
 */
import * as z from "zod";
import { type Tool, ToolError } from "../tools/tool.ts";
import {
  type McpServerConfig,
  type McpServerInput,
  type McpSourceOptions,
  type ResolvedMcpServers,
  resolveMcpServers,
} from "./config.ts";
import { McpConnection, type SandboxLauncherFor } from "./connection.ts";
import { mcpToolName, sanitizeName } from "../contracts/mcp_names.ts";
import type { McpToolKey } from "../contracts/tool_call.ts";
import { formatMcpResult } from "./result.ts";
import { reservedToolNames } from "./reserved_names.ts";

export interface McpManagerOptions {
  workspace: string;
  /** The config's `mcp` key. */
  servers?: Record<string, McpServerInput>;
  /** Read `.mcp.json` from the workspace up to the git root. @default true */
  readMcpJson?: boolean;
  /** The project config file's own `mcp` entries. */
  projectServers?: McpSourceOptions["projectServers"];
  /** Names `${VAR}` may use in a project's server. @default the child allowlist */
  projectVariables?: readonly string[];
  /**
   * The OS sandbox for servers with `"sandbox": true`. Without it such a
   * server does not start (it never starts unsandboxed).
   */
  sandboxLauncher?: SandboxLauncherFor;
  /** skiff's own environment, for the allowlist and `${VAR}`. @default Deno.env.get */
  env?: (name: string) => string | undefined;
  /**
   * The servers as the host already resolved them (src/host/setup.ts); when
   * given, the entries above are not resolved again here.
   */
  resolved?: ResolvedMcpServers;
  /** skiff's data folder: OAuth logins of remote servers are read (and refreshed) there. */
  dataDir?: string;
  /** For HTTP servers; injected so tests choose. @default globalThis.fetch */
  fetch?: typeof fetch;
  /** @default 60000 */
  timeoutMs?: number;
  /** @default 30000 */
  connectTimeoutMs?: number;
  clientInfo?: { name: string; version: string };
  /**
   * Names no MCP tool may take; a tool that would is left out with a warning.
   * @default every built-in tool's name and permission key (src/mcp/reserved_names.ts)
   */
  reservedNames?: ReadonlySet<string>;
}

export type McpServerState =
  | "connected"
  | "failed"
  | "disabled"
  | "connecting"
  | "disconnected"
  | "closed";

export interface McpServerStatus {
  name: string;
  transport: "stdio" | "http" | "sse";
  state: McpServerState;
  /** Why it failed, or why it is disconnected. */
  reason?: string;
  /** "config" or the `.mcp.json` path. */
  source: string;
  tools: { name: string; serverToolName: string; description: string }[];
}

/** `connected`, `failed: <reason>`, `disabled`… as `skiff mcp list` prints it. */
export function describeMcpState(status: McpServerStatus): string {
  if (status.state === "failed") return `failed: ${status.reason ?? "unknown reason"}`;
  if (status.state === "disconnected") {
    return `disconnected (restarts on next call): ${status.reason ?? ""}`;
  }
  return status.state;
}

interface AdaptedTool {
  tool: Tool<Record<string, unknown>>;
  server: string;
  serverToolName: string;
}

export class McpManager {
  private readonly connections: McpConnection[] = [];
  private adapted: AdaptedTool[] = [];
  private readonly disabled: {
    name: string;
    transport: "stdio" | "http" | "sse";
    source: string;
  }[] = [];

  constructor(private readonly options: McpManagerOptions) {}

  /**
   * Starts every enabled server at once and waits for each to connect, fail
   * or time out. Never throws for a server: its trouble is a warning.
   * Needs --allow-run for stdio servers and --allow-net for HTTP ones.
   */
  async start(): Promise<{ warnings: string[] }> {
    const env = this.options.env ?? ((name: string) => Deno.env.get(name));
    const { servers, warnings } = this.options.resolved
      ? structuredClone(this.options.resolved)
      : resolveMcpServers({
        workspace: this.options.workspace,
        configServers: this.options.servers,
        projectServers: this.options.projectServers,
        projectVariables: this.options.projectVariables,
        readMcpJson: this.options.readMcpJson,
        env,
        defaultTimeoutMs: this.options.timeoutMs,
        defaultConnectTimeoutMs: this.options.connectTimeoutMs,
      });
    const deps = {
      env,
      fetch: this.options.fetch,
      dataDir: this.options.dataDir,
      sandboxLauncher: this.options.sandboxLauncher,
      workspace: this.options.workspace,
      clientInfo: this.options.clientInfo ?? { name: "skiff", version: "0" },
    };
    for (const config of servers) {
      if (!config.enabled) {
        this.disabled.push({
          name: config.name,
          transport: transportKind(config),
          source: config.source,
        });
      } else this.connections.push(new McpConnection(config, deps));
    }
    await Promise.all(this.connections.map(async (connection) => {
      try {
        await connection.connect();
      } catch (error) {
        warnings.push(
          `MCP server "${connection.config.name}" did not start: ${(error as Error).message}. ` +
            `Its tools are unavailable this session; check its entry in ${connection.config.source}.`,
        );
      }
    }));
    this.adapted = this.adaptTools(warnings);
    return { warnings };
  }

  /** Tools of the servers that connected, named `{server}_{tool}`. */
  tools(): Tool<Record<string, unknown>>[] {
    return this.adapted.map((entry) => entry.tool);
  }

  status(): McpServerStatus[] {
    const running = this.connections.map((connection): McpServerStatus => ({
      name: connection.config.name,
      transport: connection.transportUsed ?? transportKind(connection.config),
      state: connection.state === "dead"
        ? "disconnected"
        : connection.state === "idle"
        ? "connecting"
        : connection.state,
      reason: connection.reason,
      source: connection.config.source,
      tools: this.adapted.filter((entry) => entry.server === connection.config.name).map((
        entry,
      ) => ({
        name: entry.tool.name,
        serverToolName: entry.serverToolName,
        description: entry.tool.description,
      })),
    }));
    const off = this.disabled.map((server): McpServerStatus => ({
      ...server,
      state: "disabled",
      tools: [],
    }));
    return [...running, ...off];
  }

  /** The connection behind a server name; for tests and diagnostics. */
  connection(name: string): McpConnection | undefined {
    return this.connections.find((connection) => connection.config.name === name);
  }

  /** Stops every server. Safe to call twice. */
  async close(): Promise<void> {
    await Promise.all(this.connections.map((connection) => connection.close()));
  }

  private adaptTools(warnings: string[]): AdaptedTool[] {
    const reserved = this.options.reservedNames ?? reservedToolNames();
    const used = new Set<string>();
    const adapted: AdaptedTool[] = [];
    const serverNames = this.connections.map((connection) => sanitizeName(connection.config.name));
    for (const connection of this.connections) {
      if (connection.state !== "connected") continue;
      const { name: server, source } = connection.config;
      for (const info of connection.tools) {
        let name = mcpToolName(server, info.name);
        // Two tools can sanitise to one name; the later gets a number.
        for (let n = 2; used.has(name); n++) {
          name = `${mcpToolName(server, info.name).slice(0, 60)}_${n}`;
        }
        if (reserved.has(name)) {
          warnings.push(
            `MCP server "${server}" (${source}) offers a tool "${info.name}", which would be named ` +
              `${name}: the name of one of skiff's own tools or permission keys. skiff left that ` +
              `tool out, so it can neither replace skiff's ${name} nor pass under its rules. ` +
              `To use it, give the server another name in ${source}: its tools are then named ` +
              `<new name>_${
                sanitizeName(info.name)
              }, and a rule such as "<new name>_*" allows them.`,
          );
          continue;
        }
        used.add(name);
        adapted.push({
          server: connection.config.name,
          serverToolName: info.name,
          tool: adaptTool(name, connection, info, serverNames),
        });
      }
    }
    return adapted;
  }
}

/**
 * The name's server and tool parts, and the session's servers whose names
 * extend this one's, for rules that allow (src/permission/mcp_rule_keys.ts).
 * A name cut short inside the server's name keeps it whole as the server part: only a
 * rule naming the tool in full (or `*`) then allows it.
 */
function toolKey(name: string, server: string, serverNames: string[]): McpToolKey {
  const prefix = `${sanitizeName(server)}_`;
  if (!name.startsWith(prefix)) return { server: name, tool: "" };
  const longerServers = serverNames.filter((other) => other.startsWith(prefix));
  return {
    server: sanitizeName(server),
    tool: name.slice(prefix.length),
    ...(longerServers.length ? { longerServers } : {}),
  };
}

/** How a server is reached, as shown to a person; "auto" shows as http until SSE took over. */
function transportKind(config: McpServerConfig): McpServerStatus["transport"] {
  return config.transport === "auto" ? "http" : config.transport;
}

function adaptTool(
  name: string,
  connection: McpConnection,
  info: McpConnection["tools"][number],
  serverNames: string[],
): Tool<Record<string, unknown>> {
  const server = connection.config.name;
  const jsonSchema = typeof info.inputSchema === "object" && info.inputSchema
    ? info.inputSchema
    : { type: "object", properties: {} };
  return {
    name,
    description: `${
      info.description?.trim() || info.name
    } (tool "${info.name}" of MCP server "${server}")`,
    // The server validates its own input; the model is shown `jsonSchema`.
    schema: z.record(z.string(), z.unknown()),
    jsonSchema,
    declare(input) {
      return {
        key: name,
        patterns: [name],
        preview: JSON.stringify(input ?? {}, null, 2),
        mcp: toolKey(name, server, serverNames),
      };
    },
    async execute(input, ctx) {
      const result = await connection.callTool(info.name, input ?? {}, ctx.signal);
      const output = formatMcpResult(result);
      if (result.isError) {
        throw new ToolError(
          "failed",
          `MCP tool ${name} reported an error: ${output}`,
          "Read the message; fix the arguments or try another way.",
        );
      }
      return { output, title: `${server} ${info.name}`, metadata: { server, tool: info.name } };
    },
  };
}
