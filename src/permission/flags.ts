/**
 * Command-line rules: `--allow 'bash(npm test *)'`, `--deny webfetch`,
 * `--ask 'edit(*.lock)'`, and the same rules in Claude Code's spelling
 * (`--allow 'Bash(git status:*)'`), read as its settings files are
 * (src/permission/claude_rules.ts). Parsing is pure and separate from the layer it
 * builds, so the CLI can report a bad flag before anything starts.
 */
import type { Action, PermissionConfig, RuleLayer } from "./rules.ts";
import { mergeRule } from "./rules.ts";
import { permissionKeyProblem } from "../config/permission_keys.ts";
import { homeDir } from "../sandbox/paths.ts";
import { isClaudeRule, mapClaudeRule } from "./claude_rules.ts";

export interface FlagRule {
  key: string;
  pattern: string;
}

const KEY = /^[A-Za-z0-9_.*?-]+$/;

/**
 * `bash(npm test *)` → {key: "bash", pattern: "npm test *"}; `webfetch` →
 * pattern `*`; `Bash(npm test:*)` → the same as `bash(npm test *)`. A rule in
 * Claude Code's spelling with no skiff counterpart is refused with the
 * reason, as a mistyped key is. `action` decides how strictly such a rule is
 * read: an allow is never widened.
 */
export function parsePermissionFlag(text: string, action: Action = "allow"): FlagRule {
  const trimmed = text.trim();
  if (isClaudeRule(trimmed)) {
    const mapped = mapClaudeRule(trimmed, action, { home: homeDir(), project: false });
    if (mapped.kind === "unmapped") {
      throw new Error(`Cannot use the permission rule '${text}': ${mapped.reason}.`);
    }
    return { key: mapped.key, pattern: mapped.pattern };
  }
  const open = trimmed.indexOf("(");
  const key = open < 0 ? trimmed : trimmed.slice(0, open).trim();
  if (!KEY.test(key)) {
    throw new Error(
      `Cannot read the permission rule '${text}': expected a tool key such as 'webfetch' ` +
        "or 'bash(npm test *)'.",
    );
  }
  const problem = permissionKeyProblem(key);
  if (problem) throw new Error(`Cannot use the permission rule '${text}': ${problem}`);
  if (open < 0) return { key, pattern: "*" };
  if (!trimmed.endsWith(")")) {
    throw new Error(
      `Cannot read the permission rule '${text}': it opens '(' but does not end with ')'. ` +
        "Quote it for the shell: --allow 'bash(npm test *)'.",
    );
  }
  const pattern = trimmed.slice(open + 1, -1).trim();
  if (!pattern) throw new Error(`Cannot read the permission rule '${text}': the pattern is empty.`);
  return { key, pattern };
}

export interface PermissionFlags {
  allow?: string[];
  ask?: string[];
  deny?: string[];
}

/** The `flags` layer. Denies are written last, though a deny wins wherever it sits. */
export function flagsLayer(flags: PermissionFlags): RuleLayer {
  const permission: PermissionConfig = {};
  const groups: [Action, string[] | undefined][] = [
    ["allow", flags.allow],
    ["ask", flags.ask],
    ["deny", flags.deny],
  ];
  for (const [action, list] of groups) {
    for (const text of list ?? []) {
      const { key, pattern } = parsePermissionFlag(text, action);
      mergeRule(permission, key, pattern, action);
    }
  }
  return { name: "flags", permission };
}
