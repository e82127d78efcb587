/**
 * On the terminal side, before the engine starts: is any MCP server
 * configured, and which environment variables may the server entries use.
 * Light on purpose — the MCP client itself loads only in sessions that have
 * servers.
 */
import * as path from "../lib/path.ts";
import { projectDirs } from "../definitions/agents/discovery.ts";
import { MAX_CONFIG_BYTES, readRegularTextFileSync } from "../config/regular_file.ts";
import { allowedEnvNames } from "../sandbox/env.ts";
import type { SessionMcp } from "../mcp/sources.ts";

/** `.mcp.json` files the MCP client reads: the same folders, workspace up to the git root. */
function mcpJsonTexts(workspace: string): string[] {
  return projectDirs(workspace).flatMap((dir) => {
    try {
      const read = readRegularTextFileSync(path.join(dir, ".mcp.json"), MAX_CONFIG_BYTES);
      if (read.kind === "missing") return [];
      // Not a regular file (a FIFO would block the read), or too large: the MCP client,
      // which reads the same files, says so in a warning.
      return read.kind === "text" && !read.cut ? [read.text] : ["mcpServers"];
    } catch {
      return []; // not readable here
    }
  });
}

/**
 * Whether any MCP server is configured, and the environment snapshot its
 * entries may draw on. Runs on the terminal side, which can read the
 * environment.
 */
export function mcpSpec(
  config: Record<string, unknown>,
  workspace: string,
  extraEnvNames: string[],
): Omit<SessionMcp, "blocked"> {
  const enabled = Object.keys(config.mcp ?? {}).length > 0 ||
    mcpJsonTexts(workspace).some((text) => text.includes("mcpServers"));
  const names = new Set([...allowedEnvNames(extraEnvNames), "NODE_EXTRA_CA_CERTS"]);
  // Only the user's own entries (`config.mcp`) may name any variable; a
  // project's `.mcp.json` gets the allowlist alone (src/mcp/config.ts).
  for (const text of [JSON.stringify(config.mcp ?? {})]) {
    for (const match of text.matchAll(/\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-[^}]*)?\}/g)) {
      names.add(match[1]);
    }
  }
  const env: Record<string, string> = {};
  for (const name of names) {
    const value = Deno.env.get(name);
    if (value !== undefined) env[name] = value;
  }
  return { enabled, env };
}
