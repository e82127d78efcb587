/**
 * How a rule's key reaches an MCP tool. An MCP tool is named
 * `{server}_{tool}`, and that name alone cannot say where the server's name
 * ends: `github_helper_issue` is the tool `helper_issue` of the server
 * `github` or the tool `issue` of the server `github_helper`. So a rule that
 * allows is held to the server's name: `github_*`, written for the server
 * `github`, allows none of a project server `github_helper`'s tools. A rule
 * that asks or denies matches the whole name as written, as it always did: a
 * broad deny keeps covering everything it covered. Pure: no I/O.
 */
import type { McpToolKey } from "../contracts/tool_call.ts";
import { type Action, wildcardMatch } from "./rules.ts";

/**
 * True when a rule with key `ruleKey` and action `action` covers the MCP tool
 * `name` of `tool.server`. An allow matches when its key is `*`, the tool's
 * full name, or splits at one of its own `_` into a part that matches the
 * server's name whole and a part that matches the tool's — unless it begins
 * with the name of a longer server of the session (`github_helper_*` is not a
 * rule for the server `github`'s tool `helper_push`).
 */
export function mcpRuleKeyMatches(
  ruleKey: string,
  action: Action,
  name: string,
  tool: McpToolKey,
): boolean {
  if (action !== "allow") return wildcardMatch(ruleKey, name);
  if (ruleKey === "*") return true;
  if (tool.longerServers?.some((server) => ruleKey.startsWith(`${server}_`))) return false;
  if (ruleKey === name) return true;
  for (let at = ruleKey.indexOf("_"); at > 0; at = ruleKey.indexOf("_", at + 1)) {
    if (
      wildcardMatch(ruleKey.slice(0, at), tool.server) &&
      wildcardMatch(ruleKey.slice(at + 1), tool.tool)
    ) return true;
  }
  return false;
}
