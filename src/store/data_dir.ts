/**
 * Where skiff keeps its data (the session database, spilled tool output):
 * `$SKIFF_DATA_DIR`, else `$XDG_DATA_HOME/skiff`, else `~/.local/share/skiff`.
 */
import * as path from "node:path";

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
