/**
 * Finds and reads the two parts skiff uses of Claude Code's settings files —
 * the `permissions` lists and the `hooks` — in the user's
 * `~/.claude/settings.json` and the workspace's `.claude/settings.json` and
 * `.claude/settings.local.json`. Only reading happens here, each file once
 * for both parts; what the rules mean and whether a project's count is
 * decided by the permission layer (src/permission/claude_layers.ts), the
 * hooks by src/hooks/sources.ts. A file that is missing is no rules and no
 * hooks; one that cannot be read is a warning, never a stop, since it is
 * another program's file.
 */
import * as path from "../lib/path.ts";
import { MAX_CONFIG_BYTES, readRegularTextFileSync } from "./regular_file.ts";

/** The project's files, in the order Claude Code lets them override each other. */
export const CLAUDE_PROJECT_SETTINGS = [
  ".claude/settings.json",
  ".claude/settings.local.json",
] as const;

/** The rule lists of one settings file. */
export interface ClaudePermissionLists {
  file: string;
  allow: string[];
  ask: string[];
  deny: string[];
}

/**
 * What reading one file gave: its lists (absent when it holds none), its
 * `hooks` value as written (absent when it has none; checked where it is
 * used), and any warnings.
 */
export interface ClaudeSettingsRead {
  lists?: ClaudePermissionLists;
  hooks?: unknown;
  warnings: string[];
}

/** The user's settings file: `~/.claude/settings.json`. */
export function claudeUserSettingsFile(home: string): string {
  return path.join(home, ".claude", "settings.json");
}

/** The project's settings files in `workspace`, lowest precedence first. */
export function claudeProjectSettingsFiles(workspace: string): string[] {
  return CLAUDE_PROJECT_SETTINGS.map((name) => path.join(workspace, name));
}

/**
 * The `permissions.allow`/`ask`/`deny` lists and the `hooks` of `file`.
 * Entries that are not strings are left out with a warning. Needs
 * --allow-read on `file`.
 */
export function readClaudeSettings(file: string): ClaudeSettingsRead {
  let read;
  try {
    read = readRegularTextFileSync(file, MAX_CONFIG_BYTES);
  } catch (error) {
    return {
      warnings: [`${file}: not read (${(error as Error).message}); its rules are not used`],
    };
  }
  if (read.kind === "missing") return { warnings: [] };
  if (read.kind === "skipped") {
    return { warnings: [`${file}: not read: ${read.reason}; its rules are not used`] };
  }
  if (read.cut) {
    return { warnings: [`${file}: not read: larger than ${read.maxBytes} bytes`] };
  }
  let settings: unknown;
  try {
    settings = JSON.parse(read.text);
  } catch (error) {
    return {
      warnings: [
        `${file}: not valid JSON (${
          (error as Error).message
        }); its permission rules and hooks are not used`,
      ],
    };
  }
  const hooks = (settings as { hooks?: unknown } | null)?.hooks;
  const lists = readPermissions(file, (settings as { permissions?: unknown } | null)?.permissions);
  return hooks === undefined ? lists : { ...lists, hooks };
}

function readPermissions(file: string, permissions: unknown): ClaudeSettingsRead {
  if (permissions === undefined) return { warnings: [] };
  if (typeof permissions !== "object" || permissions === null || Array.isArray(permissions)) {
    return { warnings: [`${file}: "permissions" is not an object; its rules are not used`] };
  }
  const warnings: string[] = [];
  const list = (name: "allow" | "ask" | "deny"): string[] => {
    const value = (permissions as Record<string, unknown>)[name];
    if (value === undefined) return [];
    if (!Array.isArray(value)) {
      warnings.push(`${file}: permissions.${name} is not a list; left out`);
      return [];
    }
    const rules = value.filter((rule): rule is string => typeof rule === "string");
    if (rules.length < value.length) {
      warnings.push(`${file}: permissions.${name} holds entries that are not strings; left out`);
    }
    return rules;
  };
  return { lists: { file, allow: list("allow"), ask: list("ask"), deny: list("deny") }, warnings };
}
