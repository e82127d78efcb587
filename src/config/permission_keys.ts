/**
 * Which permission keys mean something: the built-in keys (listed here; their
 * default rules are in src/permission/defaults.ts), MCP
 * tool names (`{server}_{tool}`), and wildcard keys that cover several
 * (`github_*`, `*`). Any other key is a rule that never matches — a deny that
 * protects nothing — so config files, agent files and `--allow`/`--ask`/
 * `--deny` refuse it with a suggestion. Pure: no I/O.
 */
import { didYouMean } from "./errors.ts";
import { mcpToolName } from "../contracts/mcp_names.ts";

/**
 * Every key a built-in tool or check asks about; other keys are MCP tool
 * names. The policy's default table (src/permission/defaults.ts) has a rule for
 * each of these and no other, which the type checker holds it to.
 */
export const BUILTIN_KEYS = [
  "read",
  "glob",
  "grep",
  "list",
  "todo",
  "todowrite",
  "todoread",
  "done_propose",
  "process",
  "edit",
  "delete",
  "bash",
  "webfetch",
  "external_directory",
  "doom_loop",
  "skill",
  "task",
  "remember",
  "harness_record",
  "harness_status",
  "harness_handoff",
  "harness_verify",
  "lsp",
] as const;

export type BuiltinKey = typeof BUILTIN_KEYS[number];

/**
 * The keys under which a call changes the workspace: `edit` (write, edit,
 * apply_patch, file_copy's destination), `delete` (file_delete) and `bash`
 * (a command). The read-only plan agent denies each (bash but for commands
 * that only look: src/definitions/agents/builtin.ts). tests/definitions/plan_writes_test.ts
 * walks the tool registry and fails for a tool whose declared writes fall
 * under a key not listed here.
 */
export const WRITING_KEYS = ["edit", "delete", "bash"] as const satisfies readonly BuiltinKey[];

const BUILTIN_KEY_NAMES: readonly string[] = BUILTIN_KEYS;

/** Tool names of other coding agents, and the skiff key that decides them. */
const OTHER_NAMES: Record<string, string> = {
  write: "edit",
  apply_patch: "edit",
  patch: "edit",
  multiedit: "edit",
  notebookedit: "edit",
  file_copy: "edit",
  file_delete: "delete",
  symbol: "grep",
  ls: "list",
  fetch: "webfetch",
  web_fetch: "webfetch",
};

/** Why `key` cannot be a permission key, or undefined when it can. */
export function permissionKeyProblem(key: string): string | undefined {
  if (BUILTIN_KEY_NAMES.includes(key) || /[*?]/.test(key)) return undefined;
  const unknown = `unknown permission key "${key}"`;
  const other = OTHER_NAMES[key.toLowerCase()];
  if (other) {
    return `${unknown} — skiff's "${other}" decides that tool` +
      (other === "edit" ? " (edit covers write and apply_patch)" : "");
  }
  const claudeMcp = /^mcp__(.+?)__(.+)$/.exec(key);
  if (claudeMcp) {
    return `${unknown} — MCP tools are named {server}_{tool} here: did you mean "${
      mcpToolName(claudeMcp[1], claudeMcp[2])
    }"?`;
  }
  const guess = didYouMean(key, BUILTIN_KEY_NAMES);
  // A name with "_" may be an MCP tool (`github_create_issue`), unless it is
  // a near miss of a built-in key that has one (`external_directry`).
  if (key.includes("_") && !guess?.includes("_")) return undefined;
  if (guess) return `${unknown} — did you mean "${guess}"?`;
  return `${unknown} (keys: ${BUILTIN_KEYS.join(", ")}; an MCP tool is {server}_{tool}, ` +
    "and a key may hold wildcards: github_*)";
}
