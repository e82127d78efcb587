/**
 * The rule layers made from Claude Code's settings files: `claude-user` from
 * `~/.claude/settings.json`, placed below skiff's global config, and
 * `claude-project` from the workspace's `.claude/settings.json` and
 * `.claude/settings.local.json`, placed below skiff's project config. A
 * repository's settings are not the user's word: until the project is
 * trusted its allow rules are left out, while its asks and denies, which only
 * tighten, stay — the same as a project's skiff.json.
 */
import {
  claudeProjectSettingsFiles,
  type ClaudeSettingsRead,
  claudeUserSettingsFile,
  readClaudeSettings,
} from "../config/claude_settings.ts";
import { type ClaudeRuleOrigin, mapClaudeRule } from "./claude_rules.ts";
import { type Action, mergeRule, type PermissionConfig } from "./rules.ts";

export type ClaudeLayerSource = "claude-user" | "claude-project";

/** A layer as the session spec carries it (see EngineSpec.permissionLayers). */
export interface ClaudePermissionLayer {
  source: ClaudeLayerSource;
  /** The file (or files, comma-separated) the rules came from. */
  path: string;
  permission: PermissionConfig;
}

export interface ClaudeLayersOptions {
  home: string;
  workspace: string;
  /** The session's trust decision on the workspace's project. */
  projectTrusted: boolean;
  /** Reads one settings file. @default readClaudeSettings */
  read?: (file: string) => ClaudeSettingsRead;
}

/**
 * The Claude Code layers for a session, and one warning line for each rule
 * that is not used. Needs --allow-read on the settings files.
 */
export function claudePermissionLayers(
  options: ClaudeLayersOptions,
): { layers: ClaudePermissionLayer[]; warnings: string[] } {
  const read = options.read ?? readClaudeSettings;
  const layers: ClaudePermissionLayer[] = [];
  const warnings: string[] = [];
  const sources: [ClaudeLayerSource, string[]][] = [
    ["claude-user", [claudeUserSettingsFile(options.home)]],
    ["claude-project", claudeProjectSettingsFiles(options.workspace)],
  ];
  for (const [source, files] of sources) {
    const project = source === "claude-project";
    const found = files.map(read);
    for (const result of found) warnings.push(...result.warnings);
    const lists = found.flatMap((result) => result.lists ? [result.lists] : []);
    if (!lists.length) continue;
    const permission: PermissionConfig = {};
    // Allows first, denies last: within a layer the last matching rule
    // decides, so a deny or ask always beats an allow, as in Claude Code.
    for (const action of ["allow", "ask", "deny"] as const) {
      for (const list of lists) {
        // The trust warning already names these rules (they are trust subjects).
        if (action === "allow" && project && !options.projectTrusted) continue;
        addRules(
          permission,
          list.file,
          action,
          list[action],
          {
            home: options.home,
            project,
            workspace: options.workspace,
          },
          warnings,
        );
      }
    }
    if (!Object.keys(permission).length) continue;
    layers.push({ source, path: lists.map((list) => list.file).join(", "), permission });
  }
  return { layers, warnings };
}

function addRules(
  permission: PermissionConfig,
  file: string,
  action: Action,
  rules: string[],
  origin: ClaudeRuleOrigin,
  warnings: string[],
): void {
  for (const rule of rules) {
    const mapped = mapClaudeRule(rule, action, origin);
    if (mapped.kind === "rule") mergeRule(permission, mapped.key, mapped.pattern, action);
    else warnings.push(`${file}: permissions.${action} "${rule}" is not used: ${mapped.reason}`);
  }
}

/** A reader that reads each settings file once, for the trust question and the layers both. */
export function claudeSettingsReader(
  read: (file: string) => ClaudeSettingsRead = readClaudeSettings,
): (file: string) => ClaudeSettingsRead {
  const seen = new Map<string, ClaudeSettingsRead>();
  return (file) => {
    let result = seen.get(file);
    if (!result) seen.set(file, result = read(file));
    return result;
  };
}

/**
 * The allow rules of the project's Claude Code settings, per file, as the
 * trust question lists them: what trusting the project would grant.
 */
export function claudeProjectAllows(
  workspace: string,
  read: (file: string) => ClaudeSettingsRead,
): { file: string; asks: string[] }[] {
  return claudeProjectSettingsFiles(workspace).flatMap((file) => {
    const allow = read(file).lists?.allow ?? [];
    return allow.length ? [{ file, asks: allow }] : [];
  });
}
