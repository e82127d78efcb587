/**
 * What an agent is once loaded, wherever it came from: a built-in, a markdown
 * file or the config. The session reads these fields; nothing else about the
 * source survives loading except `source`, for messages.
 */

import type { Action, PermissionConfig } from "../../permission/rules.ts";

export type AgentMode = "primary" | "subagent" | "all";

export type PermissionAction = Action;

/** Same shape as config `permission`: one action per key, or pattern → action. */
export type { PermissionConfig };

/**
 * Which tools the agent gets: tool name or wildcard → on/off, e.g.
 * `{"write": false, "mcp_*": false}`. The last matching entry wins; a tool no
 * entry matches is on.
 */
export type ToolToggles = Record<string, boolean>;

export interface AgentDefinition {
  /** From the file name (`review.md` → `review`) or the config key. */
  name: string;
  description: string;
  mode: AgentMode;
  /** Model id for this agent; absent means the session's model. */
  model?: string;
  temperature?: number;
  maxTurns?: number;
  /** System prompt text added for this agent (the markdown body). */
  prompt?: string;
  tools: ToolToggles;
  /** Rules layered on top of global and project config for this agent. */
  permission: PermissionConfig;
  /** "builtin", "config", or the absolute path of the markdown file. */
  source: string;
}

/** An agent definition as the config file gives it (config key `agent`). */
export interface ConfigAgent {
  description?: string;
  model?: string;
  temperature?: number;
  max_turns?: number;
  prompt?: string;
  tools?: ToolToggles;
  permission?: PermissionConfig;
  mode?: AgentMode;
  disable?: boolean;
}

/**
 * Every agent a session can use, resolved once (`resolveAgents`): plain data,
 * so the host hands it to the engine's Worker inside the spec.
 */
export interface LoadedAgents {
  agents: AgentDefinition[];
  /** One line each, naming the file and line where something was wrong. */
  warnings: string[];
}
