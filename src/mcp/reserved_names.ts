/**
 * The names an MCP tool may never take: every built-in tool's name and every
 * built-in permission key. An MCP tool is named `{server}_{tool}`, so a
 * server `harness` with a tool `record` would otherwise become
 * `harness_record` — replacing skiff's own tool of that name in the loop and
 * passing under its rules (allowed by default). Such a tool is left out when
 * the server starts (src/mcp/manager.ts).
 */
import { BUILTIN_KEYS } from "../config/permission_keys.ts";
import { generatedToolSchemas } from "../tools/registry.ts";

let reserved: ReadonlySet<string> | undefined;

/**
 * The key that lets a project's server start (src/trust/mcp_trust.ts): a tool of
 * that name would pass under `--allow mcp_server`, given only to start servers.
 */
const SERVER_START_KEY = "mcp_server";

/** Built-in and session tools' names (task, skill, harness memory…) and permission keys. */
export function reservedToolNames(): ReadonlySet<string> {
  return reserved ??= new Set<string>([
    ...BUILTIN_KEYS,
    SERVER_START_KEY,
    ...generatedToolSchemas().map(([name]) => name),
  ]);
}
