/**
 * Where skiff keeps its data (the session database, spilled tool output):
 * `$SKIFF_DATA_DIR`, else `$XDG_DATA_HOME/skiff`, else `~/.local/share/skiff`.
 */
import { mkdirSync, statSync } from "node:fs";
import * as path from "node:path";
import { StoreError } from "./errors.ts";

/** The data folder for this environment. Pure: it reads only `env`. */
export function resolveDataDir(env: Record<string, string | undefined>): string {
  if (env.SKIFF_DATA_DIR) return path.resolve(env.SKIFF_DATA_DIR);
  // The XDG spec says a relative value is invalid and must be ignored.
  if (env.XDG_DATA_HOME && path.isAbsolute(env.XDG_DATA_HOME)) {
    return path.join(env.XDG_DATA_HOME, "skiff");
  }
  const home = env.HOME ?? env.USERPROFILE ?? "/";
  return path.join(home, ".local", "share", "skiff");
}

/** The database file's name inside the data folder. */
export const DATABASE_FILE = "skiff.db";

/**
 * Create the data folder if it is missing. A folder that cannot be made (a
 * file in the way, no permission) is a `StoreError` naming it: the user's
 * setting to fix, not a bug. Needs `--allow-read` and `--allow-write` on it.
 */
export function ensureDataDir(dataDir: string): void {
  try {
    mkdirSync(dataDir, { recursive: true });
  } catch (error) {
    throw new StoreError(
      `cannot create the data folder ${dataDir} (${whyNotAFolder(dataDir, error as Error)}). ` +
        "Set SKIFF_DATA_DIR to a writable folder.",
    );
  }
}

/** The reason in words: which path is a file, or the system's message. */
function whyNotAFolder(dataDir: string, error: Error): string {
  for (let at = dataDir; at !== path.dirname(at); at = path.dirname(at)) {
    try {
      if (!statSync(at).isDirectory()) return `${at} is a file, not a folder`;
    } catch { /* missing, or not reachable: look further up */ }
  }
  return error.message;
}
