/**
 * How an MCP tool is named to the model and in rules: `{server}_{tool}`, only
 * letters, digits, `_` and `-`, under 64 characters (the limit endpoints put
 * on function names). A name cut short gets a short hash so two long names
 * stay apart.
 */
import { sha256Hex } from "../lib/sha256.ts";

export const MAX_TOOL_NAME_LENGTH = 63;

export function sanitizeName(part: string): string {
  return part.replace(/[^a-zA-Z0-9_-]/g, "_");
}

export function mcpToolName(server: string, tool: string): string {
  const full = `${sanitizeName(server)}_${sanitizeName(tool)}`;
  if (full.length <= MAX_TOOL_NAME_LENGTH) return full;
  const hash = sha256Hex(`${server}\u0000${tool}`).slice(0, 8);
  return `${full.slice(0, MAX_TOOL_NAME_LENGTH - 9)}_${hash}`;
}
