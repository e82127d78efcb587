/**
 * Where config files live: the global folder (`$SKIFF_CONFIG_DIR`, else
 * `$XDG_CONFIG_HOME/skiff`, else `~/.config/skiff`) and the project file found
 * by walking up from the workspace. Other modules use these to find agents,
 * skills and AGENTS.md next to the config, and to write-protect config files.
 */
import * as path from "../lib/path.ts";

/** Project config files, in the order they are looked for in each folder. */
export const PROJECT_CONFIG_FILES = ["skiff.json", ".skiff/config.json"] as const;

/** The global config file's name inside the config folder. */
export const GLOBAL_CONFIG_FILE = "config.json";

export type EnvMap = Record<string, string | undefined>;

/** The folder that holds the global config (and global agents, skills, AGENTS.md). */
export function resolveConfigDir(env: EnvMap, home: string): string {
  const explicit = env.SKIFF_CONFIG_DIR;
  if (explicit) return path.resolve(expandTilde(explicit, home));
  const xdg = env.XDG_CONFIG_HOME;
  if (xdg && path.isAbsolute(xdg)) return path.join(xdg, "skiff");
  return path.join(home, ".config", "skiff");
}

export interface ProjectConfigLocation {
  /** The config file that applies. */
  file: string;
  /** The folder it belongs to (for `.skiff/config.json`, the folder holding `.skiff`). */
  root: string;
  /** A second config file in the same folder, not read. */
  ignored?: string;
}

/**
 * The nearest project config file, walking up from `workspace` to the
 * filesystem root. In one folder `skiff.json` is preferred over
 * `.skiff/config.json`; the other one is reported as ignored. Any entry of
 * those names counts, not only a regular file: a FIFO or a folder there is
 * found, and reading it stops skiff with a config error naming it (its deny
 * rules are never dropped quietly). Synchronous on purpose: a handful of
 * `stat`s of absent names, each far cheaper than a trip through the runtime's
 * thread pool, which a loaded machine makes slow at every start.
 */
export function findProjectConfig(workspace: string): ProjectConfigLocation | undefined {
  let folder = path.resolve(workspace);
  for (;;) {
    const found: string[] = [];
    for (const name of PROJECT_CONFIG_FILES) {
      const candidate = path.join(folder, name);
      if (exists(candidate)) found.push(candidate);
    }
    if (found.length) return { file: found[0], root: folder, ignored: found[1] };
    const parent = path.dirname(folder);
    if (parent === folder) return undefined;
    folder = parent;
  }
}

function exists(file: string): boolean {
  try {
    Deno.statSync(file);
    return true;
  } catch (error) {
    // A folder we may not look into holds no config of ours.
    if (
      error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotCapable ||
      error instanceof Deno.errors.NotADirectory || error instanceof Deno.errors.PermissionDenied
    ) return false;
    throw error;
  }
}

export function expandTilde(input: string, home: string): string {
  if (input === "~") return home;
  if (input.startsWith("~/")) return path.join(home, input.slice(2));
  return input;
}
