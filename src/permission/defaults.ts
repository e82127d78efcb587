/**
 * The built-in bottom layer of the rule table. Everything here may be
 * tightened or loosened by config and flags; a key with no rule at all (an MCP
 * tool, say) falls back to `ask`.
 */
import type { Action, RuleLayer } from "./rules.ts";
import type { BuiltinKey } from "../config/permission_keys.ts";

/** Keys whose patterns are file paths (rules without `/` also match the base name). */
export const PATH_KEYS: ReadonlySet<string> = new Set([
  "read",
  "edit",
  "delete",
  "glob",
  "grep",
  "list",
  "external_directory",
]);

/** What a key gets when no rule of any layer matches it. */
export function keyDefault(key: string): Action {
  const known = (DEFAULT_PERMISSION as RuleLayer["permission"])[key];
  if (typeof known === "string") return known;
  if (known && typeof known === "object" && known["*"]) return known["*"];
  return "ask";
}

// One rule for every built-in key and no other (the list is in config, which checks keys).
const DEFAULT_PERMISSION: Record<BuiltinKey, RuleLayer["permission"][string]> = {
  read: { "*": "allow", "*.env": "ask", "*.env.*": "ask", "*.pem": "ask", "id_*": "ask" },
  glob: "allow",
  grep: "allow",
  list: "allow",
  todo: "allow",
  todowrite: "allow",
  todoread: "allow",
  // Writes nothing: the plan agent's criteria are measured and saved by the harness.
  done_propose: "allow",
  process: "allow",
  // Inside the workspace; outside, `external_directory` decides as well.
  edit: "allow",
  // Deleting is its own capability (file_delete), asked by default; undo brings the file back.
  delete: "ask",
  bash: "ask",
  webfetch: "ask",
  external_directory: "ask",
  doom_loop: "ask",
  skill: "allow",
  task: "allow",
  // The harness memory tools write only skiff's own store, never a workspace file.
  remember: "allow",
  harness_record: "allow",
  harness_status: "allow",
  harness_handoff: "allow",
  harness_verify: "allow",
  // Language servers run contained (read-only workspace), as a helper command does.
  lsp: "allow",
};

export function defaultLayer(): RuleLayer {
  return { name: "defaults", permission: structuredClone(DEFAULT_PERMISSION) };
}
