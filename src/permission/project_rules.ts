/**
 * Saves an "always, here" answer into the project's config file so the next
 * session in this project starts with it. The file is read, the rule merged
 * into `permission`, and the result written back by the host writer
 * (src/sandbox/writer/host_write.ts: atomically, never through a link out of the
 * project folder). Comments in a JSON-with-comments file are not kept: the
 * file is rewritten as plain JSON (docs/security.md says so).
 */
import * as path from "../lib/path.ts";
import { parseJsonc } from "../config/jsonc.ts";
import { findProjectConfig } from "../config/locations.ts";
import { writeHostFile } from "../sandbox/writer/host_write.ts";
import { type Action, mergeRule, type PermissionConfig } from "./rules.ts";

export interface ConfigFileIo {
  readText(file: string): Promise<string | null>;
  /** Writes `file`, whose folder must resolve inside `within` (the project folder). */
  writeAtomic(file: string, text: string, within: string): Promise<void>;
}

/** Real file access. Needs read and write permission on the project folder. */
export const denoConfigIo: ConfigFileIo = {
  async readText(file) {
    try {
      return await Deno.readTextFile(file);
    } catch (error) {
      if (error instanceof Deno.errors.NotFound) return null;
      throw error;
    }
  },
  async writeAtomic(file, text, within) {
    await writeHostFile(file, text, { within });
  },
};

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

function parseConfigText(
  file: string,
  text: string,
): { config: Record<string, unknown>; hadComments: boolean } {
  let value: unknown;
  let hadComments = false;
  try {
    value = JSON.parse(text);
  } catch {
    hadComments = true;
    try {
      value = parseJsonc(text);
    } catch (error) {
      throw new Error(
        `Cannot save the rule: ${file} is not valid JSON (${(error as Error).message}). ` +
          "Fix the file, then answer again.",
      );
    }
  }
  if (!value || typeof value !== "object" || Array.isArray(value)) {
    throw new Error(`Cannot save the rule: ${file} does not hold a JSON object. Fix the file.`);
  }
  return { config: value as Record<string, unknown>, hadComments };
}

export interface SavedRule {
  file: string;
  /** True when the old text had comments that the rewrite dropped. */
  droppedComments: boolean;
}

/** Merge `key(pattern) → action` for each pattern into the project config's `permission`. */
export async function saveProjectRule(
  workspace: string,
  key: string,
  patterns: string[],
  action: Action = "allow",
  io: ConfigFileIo = denoConfigIo,
): Promise<SavedRule> {
  const usable = patterns.filter((pattern) => !(key === "bash" && pattern.trim() === "*"));
  const { file, root } = await projectConfigPlace(workspace);
  const before = await io.readText(file);
  let config: Record<string, unknown> = {};
  let droppedComments = false;
  if (before !== null && before.trim()) {
    ({ config, hadComments: droppedComments } = parseConfigText(file, before));
  }
  const permission = (config.permission ?? {}) as PermissionConfig;
  for (const pattern of usable) mergeRule(permission, key, pattern, action);
  config.permission = permission;
  await io.writeAtomic(file, JSON.stringify(config, null, 2) + "\n", root);
  return { file, droppedComments };
}
