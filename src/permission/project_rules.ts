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
