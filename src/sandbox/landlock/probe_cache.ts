/**
 * The Landlock probe's last "works" (the kernel's ABI), kept in skiff's data
 * folder so a start in the same environment does not run the probe process
 * again. A "does not work" is never kept (it removes the entry): a failure
 * that passes (a busy machine, a cache being filled) must not refuse commands
 * at later starts, and such a start refuses commands anyway. An entry counts
 * only under the same key (sandbox/landlock/probe_key.ts); a missing, corrupt,
 * foreign-owned or group/other-accessible file is ignored and the probe runs.
 * A wrong "works" cannot run a command unconfined: the exec step checks the
 * kernel itself and refuses to start the command when it cannot restrict it
 * (sandbox/landlock/exec.ts). `skiff doctor` always probes and writes a fresh entry.
 */
import { type ProbeCache, readCachedProbe, writeCachedProbe } from "../pool/probe_cache.ts";

/** The file's name in the data folder. */
export const LANDLOCK_PROBE_CACHE_FILE = "landlock-probe.json";

/** Where the answer is kept and the key it must match. */
export type LandlockProbeCache = ProbeCache;

/** The probe's answer: the kernel's ABI, or why Landlock does not work here. */
export type LandlockProbeAnswer = number | string;

/**
 * The ABI cached for `cache.key`, or undefined (none, another key, or a file
 * that is unreadable, corrupt, not this user's or readable by others).
 * Needs `--allow-read` on the data folder.
 */
export function readCachedLandlockProbe(
  cache: LandlockProbeCache,
  uid: number | null = Deno.uid(),
): number | undefined {
  const abi = readCachedProbe(cache, LANDLOCK_PROBE_CACHE_FILE, "abi", uid);
  return typeof abi === "number" && Number.isInteger(abi) && abi >= 1 ? abi : undefined;
}

/**
 * Keeps an ABI for `cache.key`, written atomically and readable only by this
 * user; a "does not work" removes the entry. Best effort: a data folder that
 * cannot be written only means the next start probes again. Needs
 * `--allow-read` and `--allow-write` on it.
 */
export function writeCachedLandlockProbe(
  cache: LandlockProbeCache,
  answer: LandlockProbeAnswer,
): void {
  writeCachedProbe(
    cache,
    LANDLOCK_PROBE_CACHE_FILE,
    "abi",
    typeof answer === "string" ? undefined : answer,
  );
}
