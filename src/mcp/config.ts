/**
 * Which MCP servers a session starts: the config's `mcp` key merged over a
 * project `.mcp.json` (`{"mcpServers": {...}}`), each entry read as other
 * tools write it — `type` "stdio" | "http" | "sse", a command given as one
 * string or a list, `${VAR}` and `${VAR:-default}` in values. A config entry
 * with the name of a `.mcp.json` one is layered over it, so
 * `{"mcp": {"github": {"enabled": false}}}` turns a project server off.
 */
import * as path from "node:path";
import { projectDirs } from "../agents/discovery.ts";

/** One server as written in config or `.mcp.json`. */
export interface McpServerInput {
  type?: string;
  command?: string | string[];
  args?: string[];
  env?: Record<string, string>;
  /** Alias of `env` some files use. */
  environment?: Record<string, string>;
  cwd?: string;
  url?: string;
  headers?: Record<string, string>;
  enabled?: boolean;
  disabled?: boolean;
  /** Per call. @default 60000 */
  timeout_ms?: number;
  /** Start and handshake. @default 30000 */
  connect_timeout_ms?: number;
}

interface Common {
  name: string;
  enabled: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  /** "config" or the path of the `.mcp.json` it came from. */
  source: string;
}

export type McpServerConfig =
  | Common & {
    transport: "stdio";
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd?: string;
  }
  | Common & {
    /** "auto": streamable HTTP, falling back to SSE when the server does not speak it. */
    transport: "http" | "sse" | "auto";
    url: string;
    headers: Record<string, string>;
  };

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

export interface ResolveServersOptions {
  workspace: string;
  /** The config's `mcp` key. */
  configServers?: Record<string, McpServerInput>;
  /** Read `.mcp.json` from the workspace up to the git root. @default true */
  readMcpJson?: boolean;
  env?: (name: string) => string | undefined;
  defaultTimeoutMs?: number;
  defaultConnectTimeoutMs?: number;
}

export function resolveMcpServers(
  options: ResolveServersOptions,
): { servers: McpServerConfig[]; warnings: string[] } {
  const warnings: string[] = [];
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const entries = new Map<string, { input: McpServerInput; source: string; base: string }>();
  if (options.readMcpJson !== false) {
    for (const [name, entry] of readMcpJson(options.workspace, warnings)) entries.set(name, entry);
  }
  for (const [name, input] of Object.entries(options.configServers ?? {})) {
    const earlier = entries.get(name);
    entries.set(name, {
      input: { ...earlier?.input, ...input },
      source: "config",
      base: options.workspace,
    });
  }
  const servers: McpServerConfig[] = [];
  for (const [name, { input, source, base }] of entries) {
    const problem = (reason: string) =>
      warnings.push(`MCP server "${name}" (${source}): ${reason}`);
    const expand = (value: string) => expandVariables(value, env, problem);
    const common: Common = {
      name,
      enabled: input.enabled !== false && input.disabled !== true,
      timeoutMs: positive(input.timeout_ms) ?? options.defaultTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
      connectTimeoutMs: positive(input.connect_timeout_ms) ?? options.defaultConnectTimeoutMs ??
        DEFAULT_CONNECT_TIMEOUT_MS,
      source,
    };
    const type = input.type?.toLowerCase();
    if (input.url && type !== "stdio" && type !== "local") {
      servers.push({
        ...common,
        transport: type === "sse"
          ? "sse"
          : type === "http" || type === "streamable-http"
          ? "http"
          : "auto",
        url: expand(input.url),
        headers: mapValues(input.headers ?? {}, expand),
      });
      continue;
    }
    const commandLine = Array.isArray(input.command)
      ? input.command
      : input.command
      ? [input.command]
      : [];
    if (!commandLine.length || typeof commandLine[0] !== "string") {
      problem('needs either "command" (a program to start) or "url" (a server to reach); skipped');
      continue;
    }
    servers.push({
      ...common,
      transport: "stdio",
      command: expand(commandLine[0]),
      args: [...commandLine.slice(1), ...(input.args ?? [])].map(String).map(expand),
      env: mapValues({ ...input.environment, ...input.env }, expand),
      cwd: input.cwd ? path.resolve(base, expand(input.cwd)) : undefined,
    });
  }
  return { servers, warnings };
}

/** The nearest `.mcp.json` from the workspace up to the git root. */
function readMcpJson(
  workspace: string,
  warnings: string[],
): Map<string, { input: McpServerInput; source: string; base: string }> {
  const found = new Map<string, { input: McpServerInput; source: string; base: string }>();
  for (const dir of projectDirs(workspace).reverse()) {
    const file = path.join(dir, ".mcp.json");
    let text: string;
    try {
      text = Deno.readTextFileSync(file);
    } catch {
      continue;
    }
    try {
      const parsed = JSON.parse(text) as { mcpServers?: Record<string, McpServerInput> };
      const servers = parsed.mcpServers ?? {};
      if (typeof servers !== "object" || Array.isArray(servers)) {
        throw new Error('"mcpServers" must be an object of server name → settings');
      }
      for (const [name, input] of Object.entries(servers)) {
        found.set(name, { input, source: file, base: dir });
      }
    } catch (error) {
      warnings.push(`${file}: ${(error as Error).message}; its servers are not started`);
    }
    break;
  }
  return found;
}

/** `${VAR}` and `${VAR:-fallback}`; an unset variable without fallback is empty, with a warning. */
export function expandVariables(
  value: string,
  env: (name: string) => string | undefined,
  problem: (reason: string) => void,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name, fallback) => {
    const found = env(name);
    if (found !== undefined && found !== "") return found;
    if (fallback !== undefined) return fallback;
    problem(
      `\${${name}} is not set; set it in the environment or give a default as \${${name}:-value}`,
    );
    return "";
  });
}

function mapValues(
  record: Record<string, string>,
  map: (value: string) => string,
): Record<string, string> {
  return Object.fromEntries(
    Object.entries(record).map(([key, value]) => [key, map(String(value))]),
  );
}

function positive(value: unknown): number | undefined {
  return typeof value === "number" && value > 0 ? value : undefined;
}
