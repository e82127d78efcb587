/**
 * The built-in bottom layer of the rule table. Everything here may be
 * tightened or loosened by config and flags; a key with no rule at all (an MCP
 * tool, say) falls back to `ask`.
 */
import type { Action, RuleLayer } from "./rules.ts";

/** Keys whose patterns are file paths (rules without `/` also match the base name). */
export const PATH_KEYS: ReadonlySet<string> = new Set([
  "read",
  "edit",
  "glob",
  "grep",
  "list",
  "external_directory",
]);

/** What a key gets when no rule of any layer matches it. */
export function keyDefault(key: string): Action {
  const known = DEFAULT_PERMISSION[key];
  if (typeof known === "string") return known;
  if (known && typeof known === "object" && known["*"]) return known["*"];
  return "ask";
}

const DEFAULT_PERMISSION: RuleLayer["permission"] = {
  read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.pem": "ask", "id_*": "ask" },
  glob: "allow",
  grep: "allow",
  list: "allow",
  todo: "allow",
  todowrite: "allow",
  todoread: "allow",
  process: "allow",
  // Inside the workspace; outside, `external_directory` decides as well.
  edit: "allow",
  bash: "ask",
  webfetch: "ask",
  external_directory: "ask",
  doom_loop: "ask",
  skill: "allow",
  task: "allow",
};

/** Every key a built-in tool or check asks about; other keys are MCP tool names. */
export const BUILTIN_KEYS: readonly string[] = Object.keys(DEFAULT_PERMISSION);

export function defaultLayer(): RuleLayer {
  return { name: "defaults", permission: structuredClone(DEFAULT_PERMISSION) };
}
