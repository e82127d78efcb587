/**
 * Assembles the rule table in precedence order: built-in defaults, global
 * config, project config, the agent, command-line flags, then the answers
 * "always" given during this session.
 */
import { defaultLayer } from "./defaults.ts";
import type { PermissionConfig, RuleLayer } from "./rules.ts";

export interface LayerSources {
  global?: PermissionConfig;
  project?: PermissionConfig;
  agent?: PermissionConfig;
  flags?: RuleLayer;
  session?: RuleLayer;
}

export function buildLayers(sources: LayerSources): RuleLayer[] {
  const layers: RuleLayer[] = [defaultLayer()];
  if (sources.global) layers.push({ name: "global", permission: sources.global });
  if (sources.project) layers.push({ name: "project", permission: sources.project });
  if (sources.agent) layers.push({ name: "agent", permission: sources.agent });
  if (sources.flags) layers.push(sources.flags);
  if (sources.session) layers.push(sources.session);
  return layers;
}
