/**
 * Which tools an agent gets in a session at a given depth. Depth 0 is the
 * session a person started; a `task` child is one deeper. Todos belong to
 * the top session, so children never get the todo tools, and `task` goes
 * away once the depth limit is reached, so subagents cannot nest forever.
 */
import type { AgentDefinition, ToolToggles } from "./types.ts";
import { wildcardMatch } from "../../permission/rules.ts";

/** @default 1: a primary session may start subagents, subagents may not. */
export const DEFAULT_MAX_DEPTH = 1;

const TOP_SESSION_ONLY = ["todowrite", "todoread"];

/** True when the toggles leave `toolName` on: last matching entry wins, no match means on. */
export function isToolEnabled(tools: ToolToggles, toolName: string): boolean {
  let enabled = true;
  for (const [pattern, on] of Object.entries(tools)) {
    if (wildcardMatch(pattern, toolName)) enabled = on;
  }
  return enabled;
}

/**
 * The names from `toolNames` this agent may use at `depth`, in their order.
 * @param maxDepth deepest level that may still start subagents is `maxDepth - 1`
 * @param parents the `tools` switches of a subagent's parent chain: a child
 * never holds a tool one of its parents switched off. @default []
 */
export function filterTools(
  agent: Pick<AgentDefinition, "tools">,
  toolNames: string[],
  depth: number,
  maxDepth: number = DEFAULT_MAX_DEPTH,
  parents: readonly ToolToggles[] = [],
): string[] {
  return toolNames.filter((name) => {
    if (depth >= 1 && TOP_SESSION_ONLY.includes(name)) return false;
    if (name === "task" && depth >= maxDepth) return false;
    return isToolEnabled(agent.tools, name) &&
      parents.every((tools) => isToolEnabled(tools, name));
  });
}

/** Agents `task` may start: subagents and agents usable either way. */
export function subagentsOf(agents: AgentDefinition[]): AgentDefinition[] {
  return agents.filter((agent) => agent.mode === "subagent" || agent.mode === "all");
}

/** Agents a person may pick for a session (`--agent`). */
export function primaryAgentsOf(agents: AgentDefinition[]): AgentDefinition[] {
  return agents.filter((agent) => agent.mode === "primary" || agent.mode === "all");
}
