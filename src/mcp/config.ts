/**
 * Which MCP servers a session starts: the user's own (the global config's
 * `mcp` key) and the project's (its `.mcp.json`, `{"mcpServers": {...}}`, with
 * the `mcp` key of its own config file layered over it), each entry read as
 * other tools write it — `type` "stdio" | "http" | "sse", a command given as
 * one string or a list, `${VAR}` and `${VAR:-default}` in values.
 *
 * A name the user defined (with `command` or `url`) is the user's: a project
 * entry of that name is ignored, except to switch it off. A user entry with
 * settings only (`{"enabled": false}`) layers over the project's server of
 * that name, which stays the project's: its headers and env are not applied
 * there, since the project chose where that server connects. `${VAR}` in a project's server
 * expands only names the user allowed (`projectVariables`).
 */
import * as path from "../lib/path.ts";
import { MAX_CONFIG_BYTES, readRegularTextFileSync } from "../config/regular_file.ts";
import { projectDirs } from "../definitions/agents/discovery.ts";
import { INHERITED_VARIABLES } from "./environment.ts";

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
  /** Start a stdio server under the OS sandbox. @default false */
  sandbox?: boolean;
  /** A sandboxed server's network access. @default false */
  network?: boolean;
}

interface Common {
  name: string;
  enabled: boolean;
  timeoutMs: number;
  connectTimeoutMs: number;
  /** "config" for the user's own, else the project file it came from. */
  source: string;
  /** Whose word defines it: the user's config, or a file in the project. */
  origin: "user" | "project";
}

export type McpServerConfig =
  | Common & {
    transport: "stdio";
    command: string;
    args: string[];
    env: Record<string, string>;
    cwd?: string;
    /** Set: start it through the OS sandbox, as bash is. */
    sandbox?: { network: boolean };
  }
  | Common & {
    /** "auto": streamable HTTP, falling back to SSE when the server does not speak it. */
    transport: "http" | "sse" | "auto";
    url: string;
    headers: Record<string, string>;
  };

/** A session's servers once resolved (plain data: it crosses into the engine's Worker). */
export interface ResolvedMcpServers {
  servers: McpServerConfig[];
  /** Entries that were ignored or could not be used, for the user. */
  warnings: string[];
}

export const DEFAULT_CALL_TIMEOUT_MS = 60_000;
export const DEFAULT_CONNECT_TIMEOUT_MS = 30_000;

/** Where a session's servers come from. */
export interface McpSourceOptions {
  workspace: string;
  /** The user's own servers: the global config's `mcp` key. */
  configServers?: Record<string, McpServerInput>;
  /** The `mcp` key of the project's own config file. */
  projectServers?: { file: string; root: string; servers: Record<string, McpServerInput> };
  /** Read `.mcp.json` from the workspace up to the git root. @default true */
  readMcpJson?: boolean;
  env?: (name: string) => string | undefined;
  /**
   * Names `${VAR}` may expand to in a server the project defines.
   * @default the child allowlist (PATH, HOME, …)
   */
  projectVariables?: readonly string[];
}

export interface ResolveServersOptions extends McpSourceOptions {
  defaultTimeoutMs?: number;
  defaultConnectTimeoutMs?: number;
}

interface Entry {
  input: McpServerInput;
  source: string;
  base: string;
  origin: "user" | "project";
}

/** Whether an entry defines a server rather than changing settings of one. */
function defines(input: McpServerInput): boolean {
  return input.command !== undefined || input.url !== undefined;
}

/** Whether an entry only switches a server off. */
function onlyDisables(input: McpServerInput): boolean {
  const keys = Object.keys(input);
  return keys.length > 0 && keys.every((key) => key === "enabled" || key === "disabled") &&
    (input.enabled === false || input.disabled === true);
}

export function resolveMcpServers(options: ResolveServersOptions): ResolvedMcpServers {
  const warnings: string[] = [];
  const env = options.env ?? ((name: string) => Deno.env.get(name));
  const entries = projectEntries(options, warnings);
  for (const [name, input] of Object.entries(options.configServers ?? {})) {
    const earlier = entries.get(name);
    if (defines(input) || !earlier) {
      if (earlier && !onlyDisables(earlier.input)) {
        warnings.push(
          `MCP server "${name}" is defined in your config; the entry of that name in ${earlier.source} is ignored (a project cannot change a server you defined).`,
        );
      }
      const disabled = earlier && onlyDisables(earlier.input) ? earlier.input : {};
      entries.set(name, {
        input: { ...input, ...disabled },
        source: "config",
        base: options.workspace,
        origin: "user",
      });
      continue;
    }
    // Settings over the project's own server: still the project's server. The project chose
    // where it connects, so credentials written for that name (headers, env) are not given to it.
    const { headers, env: ownEnv, environment, ...settings } = input;
    if (headers !== undefined || ownEnv !== undefined || environment !== undefined) {
      warnings.push(
        `MCP server "${name}" is defined in ${earlier.source}: the headers and env of your config's entry for it are not sent (the project chose its url or command). Define the server in your config (its url or command) to give it credentials.`,
      );
    }
    entries.set(name, { ...earlier, input: { ...earlier.input, ...settings } });
  }
  const allowed = new Set(options.projectVariables ?? INHERITED_VARIABLES);
  const servers: McpServerConfig[] = [];
  for (const [name, entry] of entries) {
    const server = resolveEntry(name, entry, options, (problem) => warnings.push(problem), {
      env: entry.origin === "user" ? env : (variable) => allowed.has(variable) ? env(variable) : "",
      refused: entry.origin === "user" ? undefined : (variable) => !allowed.has(variable),
    });
    if (server) servers.push(server);
  }
  return { servers, warnings };
}

/** `.mcp.json`, then the project config file's `mcp` entries layered over it. */
function projectEntries(options: McpSourceOptions, warnings: string[]): Map<string, Entry> {
  const entries = options.readMcpJson === false
    ? new Map<string, Entry>()
    : readMcpJson(options.workspace, warnings);
  const project = options.projectServers;
  for (const [name, input] of Object.entries(project?.servers ?? {})) {
    const earlier = entries.get(name);
    entries.set(name, {
      input: defines(input) || !earlier ? input : { ...earlier.input, ...input },
      source: project!.file,
      base: project!.root,
      origin: "project",
    });
  }
  return entries;
}

function resolveEntry(
  name: string,
  { input, source, base, origin }: Entry,
  options: ResolveServersOptions,
  warn: (line: string) => void,
  variables: {
    env: (name: string) => string | undefined;
    refused?: (name: string) => boolean;
  },
): McpServerConfig | undefined {
  const problem = (reason: string) => warn(`MCP server "${name}" (${source}): ${reason}`);
  const expand = (value: string) =>
    expandVariables(value, variables.env, problem, variables.refused);
  const common: Common = {
    name,
    enabled: input.enabled !== false && input.disabled !== true,
    timeoutMs: positive(input.timeout_ms) ?? options.defaultTimeoutMs ?? DEFAULT_CALL_TIMEOUT_MS,
    connectTimeoutMs: positive(input.connect_timeout_ms) ?? options.defaultConnectTimeoutMs ??
      DEFAULT_CONNECT_TIMEOUT_MS,
    source,
    origin,
  };
  const type = input.type?.toLowerCase();
  if (input.url && type !== "stdio" && type !== "local") {
    return {
      ...common,
      transport: type === "sse"
        ? "sse"
        : type === "http" || type === "streamable-http"
        ? "http"
        : "auto",
      url: expand(input.url),
      headers: mapValues(input.headers ?? {}, expand),
    };
  }
  const commandLine = Array.isArray(input.command)
    ? input.command
    : input.command
    ? [input.command]
    : [];
  if (!commandLine.length || typeof commandLine[0] !== "string") {
    problem('needs either "command" (a program to start) or "url" (a server to reach); skipped');
    return undefined;
  }
  let cwd = input.cwd ? path.resolve(base, expand(input.cwd)) : undefined;
  if (cwd && origin === "project") {
    // Judged on the real path: a link in the project may point anywhere.
    const root = realOrSelf(base);
    cwd = realOrSelf(cwd);
    if (cwd !== root && !cwd.startsWith(root.endsWith(path.sep) ? root : root + path.sep)) {
      problem(`its "cwd" resolves to ${cwd}, outside the project (${root}); skipped`);
      return undefined;
    }
  }
  return {
    ...common,
    transport: "stdio",
    command: expand(commandLine[0]),
    args: [...commandLine.slice(1), ...(input.args ?? [])].map(String).map(expand),
    env: mapValues({ ...input.environment, ...input.env }, expand),
    cwd,
    ...(input.sandbox === true ? { sandbox: { network: input.network === true } } : {}),
  };
}

function realOrSelf(target: string): string {
  try {
    return Deno.realPathSync(target);
  } catch {
    return path.resolve(target);
  }
}

/** The nearest `.mcp.json` from the workspace up to the git root. */
function readMcpJson(
  workspace: string,
  warnings: string[],
): Map<string, Entry> {
  const found = new Map<string, Entry>();
  for (const dir of projectDirs(workspace).reverse()) {
    const file = path.join(dir, ".mcp.json");
    let text: string;
    try {
      // Only a regular file: a FIFO named .mcp.json would make skiff wait at start.
      const read = readRegularTextFileSync(file, MAX_CONFIG_BYTES);
      if (read.kind === "skipped" || (read.kind === "text" && read.cut)) {
        warnings.push(
          `${file} was not read: ${
            read.kind === "skipped" ? read.reason : `it holds more than ${MAX_CONFIG_BYTES} bytes`
          }. Its MCP servers are not started.`,
        );
      }
      if (read.kind !== "text" || read.cut) continue;
      text = read.text;
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
        found.set(name, { input, source: file, base: dir, origin: "project" });
      }
    } catch (error) {
      warnings.push(`${file}: ${(error as Error).message}; its servers are not started`);
    }
    break;
  }
  return found;
}

/**
 * `${VAR}` and `${VAR:-fallback}`; an unset variable without fallback is
 * empty, with a warning. A `refused` name is treated as unset, and said so.
 */
export function expandVariables(
  value: string,
  env: (name: string) => string | undefined,
  problem: (reason: string) => void,
  refused?: (name: string) => boolean,
): string {
  return value.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g, (_, name, fallback) => {
    if (refused?.(name)) {
      if (fallback !== undefined) return fallback;
      problem(
        `\${${name}} is not expanded in a server the project defines; list ${name} in sandbox.env of your global config to allow it (credential names never are), or define the server in your global config`,
      );
      return "";
    }
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
