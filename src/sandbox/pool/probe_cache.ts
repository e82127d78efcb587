/**
 * A sandbox probe's last "works", kept in skiff's data folder so a start in
 * the same environment does not run the probe's process again: one small
 * file per probe (sandbox/landlock/probe_cache.ts, sandbox/bwrap/probe_cache.ts), each entry
 * counted only under the same key (sandbox/landlock/probe_key.ts). A missing,
 * corrupt, foreign-owned or group/other-accessible file is ignored and the
 * probe runs; a "does not work" is never kept (it removes the entry).
 */
import * as path from "../../lib/path.ts";
import { writeFileAtomicSync } from "../../lib/atomic_write.ts";

/** Where an answer is kept and the key it must match. */
export interface ProbeCache {
  /** skiff's data folder (never the workspace). */
  dataDir: string;
  /** landlockProbeKey() of this environment. */
  key: string;
}

/**
 * The answer kept in `file` under `cache.key` as `field`, or undefined (none,
 * another key, or a file that is unreadable, corrupt, not this user's or
 * readable by others). The caller checks the answer's type. Needs
 * `--allow-read` on the data folder.
 */
export function readCachedProbe(
  cache: ProbeCache,
  file: string,
  field: string,
  uid: number | null = Deno.uid(),
): unknown {
  try {
    const target = path.join(cache.dataDir, file);
    const info = Deno.lstatSync(target);
    if (!info.isFile || (uid !== null && info.uid !== uid)) return undefined;
    if (info.mode === null || (info.mode & 0o077) !== 0) return undefined;
    const entry = JSON.parse(Deno.readTextFileSync(target)) as Record<string, unknown> | null;
    if (entry?.version !== 1 || entry.key !== cache.key) return undefined;
    return entry[field];
  } catch {
    return undefined;
  }
}

/**
 * Keeps `answer` as `field` of `file` for `cache.key`, written atomically and
 * readable only by this user; undefined (a "does not work") removes the
 * file. Best effort: a data folder that cannot be written only means the
 * next start probes again. Needs `--allow-read` and `--allow-write` on it.
 */
export function writeCachedProbe(
  cache: ProbeCache,
  file: string,
  field: string,
  answer: unknown,
): void {
  const target = path.join(cache.dataDir, file);
  try {
    if (answer === undefined) {
      Deno.removeSync(target);
      return;
    }
    const entry = { version: 1, key: cache.key, [field]: answer };
    writeFileAtomicSync(target, new TextEncoder().encode(JSON.stringify(entry) + "\n"), 0o600);
  } catch { /* none kept, or the next start probes again */ }
}
