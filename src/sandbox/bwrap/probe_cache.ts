/**
 * The bubblewrap probe's last "works" (which bubblewrap ran), kept in skiff's
 * data folder like Landlock's (probe_cache.ts), so a start in the same
 * environment runs no probe process: the probe was a bubblewrap run inside
 * every session's opening. The key (sandbox/landlock/probe_key.ts) holds what the
 * answer depends on: the kernel and its security modules, the namespaces'
 * limits, the container, the user and each bubblewrap's file. Only a path
 * the probe itself tries is ever taken from the file, so an edited entry can
 * name no other program; a wrong "works" fails closed: bubblewrap then fails
 * to start the sandbox and the command is refused, never run unconfined, and
 * the session drops the entry (`onStartFailed`, sandbox/pool/pool.ts), so the next
 * start probes again. `skiff doctor` always probes and writes a fresh entry.
 */
import { type ProbeCache, readCachedProbe, writeCachedProbe } from "../pool/probe_cache.ts";

/** The file's name in the data folder. */
export const BWRAP_PROBE_CACHE_FILE = "bwrap-probe.json";

/** The bubblewraps the probe tries, in order; the cache keeps one of these. */
export const BWRAP_CANDIDATES: readonly string[] = [
  "/usr/bin/bwrap",
  "/usr/local/bin/bwrap",
  "bwrap",
];

/**
 * A bubblewrap the cache may hold: one the probe tries by its full path,
 * whose file is part of the key. One found on PATH is not kept (PATH is not).
 */
function keepable(bwrap: unknown): bwrap is string {
  return typeof bwrap === "string" && bwrap.startsWith("/") && BWRAP_CANDIDATES.includes(bwrap);
}

/** The bubblewrap cached for `cache.key` as working, or undefined. */
export function readCachedBwrapProbe(
  cache: ProbeCache,
  uid: number | null = Deno.uid(),
): string | undefined {
  const bwrap = readCachedProbe(cache, BWRAP_PROBE_CACHE_FILE, "bwrap", uid);
  return keepable(bwrap) ? bwrap : undefined;
}

/**
 * Keeps the working bubblewrap for `cache.key`; null (none works) or one
 * found on PATH removes the entry.
 */
export function writeCachedBwrapProbe(cache: ProbeCache, bwrap: string | null): void {
  writeCachedProbe(cache, BWRAP_PROBE_CACHE_FILE, "bwrap", keepable(bwrap) ? bwrap : undefined);
}
