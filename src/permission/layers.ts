/**
 * Assembles the rule table in precedence order: built-in defaults, the
 * user's Claude Code settings, global config, the project's Claude Code
 * settings, project config, the parent agents of a subagent (outermost first),
 * the agent, command-line flags. The gate adds the last layer itself: the
 * answers "always" given during this session.
 */
import { defaultLayer } from "./defaults.ts";
import type { PermissionConfig, RuleLayer } from "./rules.ts";

export interface LayerSources {
  /** Rules read from the user's Claude Code settings (src/permission/claude_layers.ts). */
  claudeUser?: PermissionConfig;
  global?: PermissionConfig;
  /** Rules read from the project's Claude Code settings, allows only when trusted. */
  claudeProject?: PermissionConfig;
  project?: PermissionConfig;
  /** A subagent's parent chain, outermost first; each one is an "agent" layer. */
  parentAgents?: PermissionConfig[];
  /** The running agent's own rules (a subagent's come with their allows already dropped). */
  agent?: PermissionConfig;
  flags?: RuleLayer;
  /** Rules standing in for "always" answers, for a table judged without a gate. */
  session?: RuleLayer;
}

export function buildLayers(sources: LayerSources): RuleLayer[] {
  const layers: RuleLayer[] = [defaultLayer()];
  if (sources.claudeUser) layers.push({ name: "claude-user", permission: sources.claudeUser });
  if (sources.global) layers.push({ name: "global", permission: sources.global });
  if (sources.claudeProject) {
    layers.push({ name: "claude-project", permission: sources.claudeProject });
  }
  if (sources.project) layers.push({ name: "project", permission: sources.project });
  for (const parent of sources.parentAgents ?? []) {
    layers.push({ name: "agent", permission: parent });
  }
  if (sources.agent) layers.push({ name: "agent", permission: sources.agent });
  if (sources.flags) layers.push(sources.flags);
  if (sources.session) layers.push(sources.session);
  return layers;
}
