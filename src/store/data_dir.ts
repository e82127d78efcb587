/**
 * Where skiff keeps its data (the session database, spilled tool output):
 * `$SKIFF_DATA_DIR`, else `$XDG_DATA_HOME/skiff`, else `~/.local/share/skiff`.
 */
import * as path from "../lib/path.ts";
import { StoreError } from "./errors.ts";

/** The data folder for this environment (pure: it reads only `env`). */
export { resolveDataDir } from "./data_dir_path.ts";

/** The database file's name inside the data folder. */
export const DATABASE_FILE = "skiff.db";

/**
 * Create the data folder if it is missing. A folder that cannot be made (a
 * file in the way, no permission) is a `StoreError` naming it: the user's
 * setting to fix, not a bug. Needs `--allow-read` and `--allow-write` on it.
 */
export function ensureDataDir(dataDir: string): void {
  try {
    Deno.mkdirSync(dataDir, { recursive: true });
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
      if (!Deno.statSync(at).isDirectory) return `${at} is a file, not a folder`;
    } catch { /* missing, or not reachable: look further up */ }
  }
  return error.message;
}
