/**
 * The MCP servers an editor hands over with `session/new` and
 * `session/load`. The editor is the user's own program, but what it passes
 * may come from the folder it opened (an editor's project settings can name
 * servers), and a server starts as the user, outside the sandbox. So they
 * follow the one trust decision: in a trusted project they join the
 * session's servers as the user's own entries; in any other they are not
 * started, and a warning names them and the flag (docs/security.md).
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { EngineSpec } from "../../engine/types.ts";
import { mcpSources } from "../../mcp/sources.ts";
import { resolveMcpServers } from "../../mcp/config.ts";

/** One editor server as a config entry (src/mcp/config.ts reads it like one of the user's). */
export function mcpEntry(server: acp.McpServer): Record<string, unknown> {
  if ("type" in server && (server.type === "http" || server.type === "sse")) {
    return {
      type: server.type,
      url: server.url,
      headers: Object.fromEntries(server.headers.map((header) => [header.name, header.value])),
    };
  }
  const stdio = server as acp.McpServerStdio;
  return {
    type: "stdio",
    command: [stdio.command, ...stdio.args],
    env: Object.fromEntries(stdio.env.map((variable) => [variable.name, variable.value])),
  };
}

/**
 * Adds the editor's servers to `spec` (changed in place) when the project is
 * trusted; otherwise returns the warning that says they were not started.
 * A name the user's own config already holds keeps the user's entry.
 */
export function addEditorServers(
  spec: EngineSpec,
  servers: readonly acp.McpServer[],
): string | undefined {
  if (!servers.length) return undefined;
  const names = servers.map((server) => server.name).join(", ");
  if (!spec.projectTrusted) {
    return `the editor's MCP servers (${names}) were not started: ${spec.workspace} is not a ` +
      "trusted project, and a server the editor passes may come from the project's own " +
      "settings. Start skiff acp with --trust-project to start them, or add them to your " +
      "global skiff config.";
  }
  const own = spec.mcp.userServers ?? {};
  const added = Object.fromEntries(
    servers.filter((server) => !(server.name in own)).map((server) => [
      server.name,
      mcpEntry(server),
    ]),
  );
  spec.mcp = { ...spec.mcp, enabled: true, userServers: { ...added, ...own } };
  spec.mcp.resolved = resolveMcpServers(mcpSources(spec));
  return undefined;
}
