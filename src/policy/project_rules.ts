/**
 * Saves an "always, here" answer into the project's config file so the next
 * session in this project starts with it. The file is read, the rule merged
 * into `permission`, and the result written back atomically (temp file +
 * rename). Comments in a JSON-with-comments file are not kept: the file is
 * rewritten as plain JSON (docs/security.md says so).
 */
import * as path from "node:path";
import { type Action, mergeRule, type PermissionConfig } from "./rules.ts";

/** Project config names, in the order they are looked for. */
export const PROJECT_CONFIG_NAMES: readonly string[] = ["skiff.json", ".skiff/config.json"];

export interface ConfigFileIo {
  readText(file: string): Promise<string | null>;
  writeAtomic(file: string, text: string): Promise<void>;
  exists(file: string): Promise<boolean>;
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
  async writeAtomic(file, text) {
    await Deno.mkdir(path.dirname(file), { recursive: true });
    const temp = `${file}.${crypto.randomUUID().slice(0, 8)}.tmp`;
    let mode: number | null = null;
    try {
      mode = (await Deno.stat(file)).mode;
    } catch { /* a new file */ }
    await Deno.writeTextFile(temp, text, mode === null ? {} : { mode: mode & 0o777 });
    try {
      await Deno.rename(temp, file);
    } catch (error) {
      await Deno.remove(temp).catch(() => {});
      throw error;
    }
  },
  async exists(file) {
    try {
      await Deno.lstat(file);
      return true;
    } catch {
      return false;
    }
  },
};

/** JSON with `//` and `/* *\/` comments and trailing commas → JSON text. */
export function stripJsonComments(text: string): string {
  let out = "";
  let i = 0;
  while (i < text.length) {
    const char = text[i];
    if (char === '"') {
      let j = i + 1;
      while (j < text.length && text[j] !== '"') j += text[j] === "\\" ? 2 : 1;
      out += text.slice(i, j + 1);
      i = j + 1;
    } else if (char === "/" && text[i + 1] === "/") {
      while (i < text.length && text[i] !== "\n") i++;
    } else if (char === "/" && text[i + 1] === "*") {
      const end = text.indexOf("*/", i + 2);
      i = end < 0 ? text.length : end + 2;
    } else {
      out += char;
      i++;
    }
  }
  return out.replace(/,(\s*[}\]])/g, "$1");
}

/**
 * The project config file to write: an existing `skiff.json` or
 * `.skiff/config.json` in the workspace or a folder above it (up to the git
 * root), else a new `skiff.json` in the workspace.
 */
export async function findProjectConfig(
  workspace: string,
  io: ConfigFileIo = denoConfigIo,
): Promise<string> {
  let dir = path.resolve(workspace);
  for (;;) {
    for (const name of PROJECT_CONFIG_NAMES) {
      const candidate = path.join(dir, name);
      if (await io.exists(candidate)) return candidate;
    }
    const parent = path.dirname(dir);
    if (parent === dir || await io.exists(path.join(dir, ".git"))) break;
    dir = parent;
  }
  return path.join(path.resolve(workspace), "skiff.json");
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
  const file = await findProjectConfig(workspace, io);
  const before = await io.readText(file);
  let config: Record<string, unknown> = {};
  let droppedComments = false;
  if (before !== null && before.trim()) {
    const plain = stripJsonComments(before);
    droppedComments = plain.replace(/\s/g, "") !== before.replace(/\s/g, "");
    try {
      config = JSON.parse(plain);
    } catch (error) {
      throw new Error(
        `Cannot save the rule: ${file} is not valid JSON (${(error as Error).message}). ` +
          "Fix the file, then answer again.",
      );
    }
    if (!config || typeof config !== "object" || Array.isArray(config)) {
      throw new Error(`Cannot save the rule: ${file} does not hold a JSON object. Fix the file.`);
    }
  }
  const permission = (config.permission ?? {}) as PermissionConfig;
  for (const pattern of usable) mergeRule(permission, key, pattern, action);
  config.permission = permission;
  await io.writeAtomic(file, JSON.stringify(config, null, 2) + "\n");
  return { file, droppedComments };
}
