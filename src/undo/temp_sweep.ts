/**
 * Leftover temporary files of skiff's atomic writes (src/lib/atomic_write.ts
 * names them `.<name>.skiff-<8 hex>.tmp` beside the file it writes): a run
 * killed in the middle of a write leaves one. They are swept at the next
 * start in the workspace, only in folders skiff wrote in (the store names
 * them), only names of that exact pattern, only regular files, without
 * following a symbolic link (a folder that became one is skipped).
 */
import * as path from "../lib/path.ts";
import { ATOMIC_TEMP_NAME } from "../lib/atomic_write.ts";

/** A live write holds its temporary file no longer than this. */
export const TEMP_FILE_STALE_MS = 60_000;

export interface SweepOptions {
  /**
   * Only files not modified for `TEMP_FILE_STALE_MS`: another run in the
   * workspace may be writing now. False when no live run is there.
   */
  onlyStale: boolean;
  /** @default Date.now */
  now?: () => number;
}

/**
 * Removes skiff's leftover temporary files from `folders` (absolute, as
 * skiff wrote in them); answers the paths removed. Never throws: a folder
 * that cannot be read is skipped. Needs read and write access to the folders.
 */
export function sweepTempFiles(folders: readonly string[], options: SweepOptions): string[] {
  const removed: string[] = [];
  const now = options.now ?? Date.now;
  for (const folder of folders) {
    let entries: Deno.DirEntry[];
    try {
      // The folder itself, not where a link now on its path leads.
      if (Deno.realPathSync(folder) !== folder || !Deno.lstatSync(folder).isDirectory) continue;
      entries = [...Deno.readDirSync(folder)];
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile || !ATOMIC_TEMP_NAME.test(entry.name)) continue;
      const file = path.join(folder, entry.name);
      try {
        const info = Deno.lstatSync(file);
        if (!info.isFile) continue;
        const age = now() - (info.mtime?.getTime() ?? now());
        if (options.onlyStale && age < TEMP_FILE_STALE_MS) continue;
        Deno.removeSync(file);
        removed.push(file);
      } catch {
        // Gone already, or not ours to remove.
      }
    }
  }
  return removed;
}
