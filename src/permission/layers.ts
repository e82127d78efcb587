/**
 * Assembles the rule table in precedence order: built-in defaults, global
 * config, project config, the parent agents of a subagent (outermost first),
 * the agent, command-line flags. The gate adds the last layer itself: the
 * answers "always" given during this session.
 */
import { defaultLayer } from "./defaults.ts";
import type { PermissionConfig, RuleLayer } from "./rules.ts";

export interface LayerSources {
  global?: PermissionConfig;
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
  if (sources.global) layers.push({ name: "global", permission: sources.global });
  if (sources.project) layers.push({ name: "project", permission: sources.project });
  for (const parent of sources.parentAgents ?? []) {
    layers.push({ name: "agent", permission: parent });
  }
  if (sources.agent) layers.push({ name: "agent", permission: sources.agent });
  if (sources.flags) layers.push(sources.flags);
  if (sources.session) layers.push(sources.session);
  return layers;
}
