/**
 * Saves an "always, here" answer into the project's config file so the next
 * session in this project starts with it. The file is read, the rule merged
 * into `permission`, and the result written back by the config editor
 * (src/config/jsonc.ts), which keeps the file's comments, through the host
 * writer (src/sandbox/writer/host_write.ts: atomically, never through a link
 * out of the project folder).
 */
import * as path from "../lib/path.ts";
import type { ConfigFileIo } from "../config/jsonc.ts";
import { findProjectConfig } from "../config/locations.ts";
import { type Action, mergeRule, type PermissionConfig } from "./rules.ts";
import { realpathLenient } from "../sandbox/paths.ts";

/**
 * The project config file to write: the one config loading uses (the nearest
 * `skiff.json` or `.skiff/config.json` walking up from the workspace), else a
 * new `skiff.json` in the workspace. Writing anywhere else could create a
 * nearer file that hides the existing one.
 */
export async function projectConfigTarget(workspace: string): Promise<string> {
  return (await projectConfigPlace(workspace)).file;
}

/** `projectConfigTarget` and the project folder holding it, which the write may not leave. */
async function projectConfigPlace(workspace: string): Promise<{ file: string; root: string }> {
  const found = await findProjectConfig(workspace);
  const root = path.resolve(workspace);
  return found ?? { file: path.join(root, "skiff.json"), root };
}

export interface SavedRule {
  file: string;
}

/** Merge `key(pattern) → action` for each pattern into the project config's `permission`. */
export async function saveProjectRule(
  workspace: string,
  key: string,
  patterns: string[],
  action: Action = "allow",
  io?: ConfigFileIo,
): Promise<SavedRule> {
  const usable = patterns.filter((pattern) => !(key === "bash" && pattern.trim() === "*"));
  const { file, root } = await projectConfigPlace(workspace);
  // The engine loads the config editor (and jsonc-parser) only when a rule is saved.
  const { editConfigFile } = await import("../config/jsonc.ts");
  await editConfigFile(file, (config) => {
    const permission = (config.permission ?? {}) as PermissionConfig;
    for (const pattern of usable) mergeRule(permission, key, pattern, action);
    config.permission = permission;
  }, {
    purpose: "Cannot save the rule",
    fix: "Fix the file, then answer again.",
    write: { within: root },
    io,
  });
  return { file };
}

/**
 * The rules the user keeps for the project at `root` in their own config's
 * `projects` (an "always, here" answer in a project they have not trusted),
 * the entry found by real path.
 */
export function ownProjectRules(
  global: { projects?: Record<string, { permission?: PermissionConfig }> } | undefined,
  root: string,
): PermissionConfig | undefined {
  const wanted = realpathLenient(path.resolve(root));
  const entry = Object.entries(global?.projects ?? {}).find(([folder]) =>
    realpathLenient(path.resolve(folder)) === wanted
  );
  return entry?.[1].permission;
}

/**
 * `layers` with the user's own rules for this project merged into their
 * global layer (after its own rules, so the project's entry wins where both
 * name a pattern): they are the user's, whatever the project's trust.
 */
export function withOwnProjectRules<
  L extends { source: string; path?: string; permission: Record<string, unknown> },
>(layers: L[], own: PermissionConfig | undefined, globalFile: string): L[] {
  if (!own || !Object.keys(own).length) return layers;
  const merged = (base: PermissionConfig) => {
    const copy = structuredClone(base);
    for (const [key, rule] of Object.entries(own)) {
      if (typeof rule === "string") mergeRule(copy, key, "*", rule);
      else {for (const [pattern, action] of Object.entries(rule)) {
          mergeRule(copy, key, pattern, action);
        }}
    }
    return copy;
  };
  const at = layers.findIndex((layer) => layer.source === "global");
  if (at >= 0) {
    return layers.map((layer, index) =>
      index === at ? { ...layer, permission: merged(layer.permission as PermissionConfig) } : layer
    );
  }
  return [{ source: "global", path: globalFile, permission: merged({}) } as L, ...layers];
}

/**
 * Saves an "always, here" answer given in a project the user has not
 * trusted into the user's own config (`projects[root].permission`), through
 * the config editor: the project's file would make the next start ask to
 * trust the whole project for the user's own rule.
 */
export async function saveOwnProjectRule(
  globalFile: string,
  root: string,
  key: string,
  patterns: string[],
): Promise<void> {
  const usable = patterns.filter((pattern) => !(key === "bash" && pattern.trim() === "*"));
  const folder = realpathLenient(path.resolve(root));
  const { editConfigFile } = await import("../config/jsonc.ts");
  await editConfigFile(globalFile, (config) => {
    const projects = (config.projects ?? {}) as Record<string, { permission?: PermissionConfig }>;
    const permission = projects[folder]?.permission ?? {};
    for (const pattern of usable) mergeRule(permission, key, pattern, "allow");
    projects[folder] = { ...projects[folder], permission };
    config.projects = projects;
  }, {
    purpose: "Cannot save the rule",
    fix: "Fix the file, then answer again; the rule holds for this session.",
    write: { newMode: 0o600 },
  });
}
