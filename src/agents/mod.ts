/** The agents concept, as the rest of skiff uses it. */
export type {
  AgentDefinition,
  AgentMode,
  ConfigAgent,
  PermissionAction,
  PermissionConfig,
  ToolToggles,
} from "./types.ts";
export { loadAgents, type LoadAgentsOptions, type LoadedAgents } from "./load.ts";
export { builtinAgents } from "./builtin.ts";
export {
  DEFAULT_MAX_DEPTH,
  filterTools,
  isToolEnabled,
  primaryAgentsOf,
  subagentsOf,
} from "./filter_tools.ts";
export { FrontmatterError, parseFrontmatter } from "./frontmatter.ts";
