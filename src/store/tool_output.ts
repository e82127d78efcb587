/**
 * The data folder's `tool-output/`: one folder per session holding the full
 * text of tool output too long for the history (src/tools/truncate.ts). The
 * model may read its own session's folder; `sessions rm` deletes it with the
 * session, and folders left by old sessions are pruned by age and total size
 * (config `toolOutput`) when a session starts.
 */
import * as path from "../lib/path.ts";

/** @default 7 days */
export const DEFAULT_MAX_AGE_DAYS = 7;
/** @default 500 MiB */
export const DEFAULT_MAX_MB = 500;

/** A name safe as one path segment: the provider chooses call ids. */
export function safeSegment(name: string, fallback: string): string {
  const safe = name.replace(/[^A-Za-z0-9_.-]/g, "_").replace(/^\.+/, "_");
  return safe || fallback;
}

export function toolOutputRoot(dataDir: string): string {
  return path.join(dataDir, "tool-output");
}

/** Where one session's spilled output goes. */
export function spillFolder(dataDir: string, sessionId: string): string {
  return path.join(toolOutputRoot(dataDir), safeSegment(sessionId, "session"));
}

/** Delete a session's spill folder; a missing one is fine. Needs write access to `dataDir`. */
export function removeSpillFolder(dataDir: string, sessionId: string): void {
  try {
    Deno.removeSync(spillFolder(dataDir, sessionId), { recursive: true });
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
}

export interface PruneOptions {
  /** @default DEFAULT_MAX_AGE_DAYS */
  maxAgeDays?: number;
  /** Total size of every session's spilled output. @default DEFAULT_MAX_MB */
  maxMB?: number;
  /** Sessions whose folders stay whatever their age (the ones running now). */
  keep?: readonly string[];
  /** @default Date.now */
  now?: () => number;
  /**
   * Skip the pruning when the last one (by this option) was less than this
   * long ago: measuring the folders lstat's every spilled file, a cost that grows
   * with the sessions kept and that every session start paid (docs/performance.md). The time is kept as the mtime of `PRUNED_MARK` in the data folder.
   * @default undefined (always prune)
   */
  everyMs?: number;
}

/** In the data folder: touched as each pruning that `everyMs` asked for begins. */
export const PRUNED_MARK = "tool-output.pruned";
/** How often a session's start prunes: at most once an hour. */
export const PRUNE_EVERY_MS = 3600 * 1000;

interface Entry {
  path: string;
  name: string;
  bytes: number;
  /** Last change of anything in it. */
  changed: number;
}

function entryNames(folder: string): Set<string> {
  return new Set([...Deno.readDirSync(folder)].map((entry) => entry.name));
}

/** The mark's time is within `everyMs` before now (a time ahead of now, a clock set back, is not). */
function prunedRecently(mark: string, now: number, everyMs: number): boolean {
  try {
    const at = Deno.statSync(mark).mtime?.getTime();
    return at !== undefined && at <= now && now - at < everyMs;
  } catch {
    return false;
  }
}

function touch(mark: string, now: number): void {
  try {
    Deno.writeFileSync(mark, new Uint8Array(), { mode: 0o600 });
    Deno.utimeSync(mark, new Date(now), new Date(now));
  } catch {
    // A read-only data folder: pruning is best effort, and so is its mark.
  }
}

function measure(target: string, name: string): Entry {
  let bytes = 0;
  let changed = 0;
  const visit = (at: string) => {
    const info = Deno.lstatSync(at);
    changed = Math.max(changed, info.mtime?.getTime() ?? 0);
    if (info.isDirectory) {
      for (const child of Deno.readDirSync(at)) visit(path.join(at, child.name));
    } else bytes += info.size;
  };
  visit(target);
  return { path: target, name, bytes, changed };
}

/**
 * Remove spill folders (and loose files from older versions) last changed
 * more than `maxAgeDays` ago, then the oldest until the rest fit in `maxMB`.
 * Best effort: what cannot be measured or removed is left. Returns the
 * removed paths. Needs read and write access to `dataDir`.
 */
export function pruneToolOutput(dataDir: string, options: PruneOptions = {}): string[] {
  const now = (options.now ?? Date.now)();
  const maxAge = (options.maxAgeDays ?? DEFAULT_MAX_AGE_DAYS) * 24 * 3600 * 1000;
  const maxBytes = (options.maxMB ?? DEFAULT_MAX_MB) * 1024 * 1024;
  const keep = new Set((options.keep ?? []).map((id) => safeSegment(id, "session")));
  const root = toolOutputRoot(dataDir);
  const entries: Entry[] = [];
  try {
    // Until a session spills output there is no folder: the data folder's few names tell,
    // where listing the missing folder would build an error at a process's start.
    const names = entryNames(dataDir);
    if (!names.has(path.basename(root))) return [];
    if (options.everyMs !== undefined) {
      const mark = path.join(dataDir, PRUNED_MARK);
      if (names.has(PRUNED_MARK) && prunedRecently(mark, now, options.everyMs)) return [];
      // Marked first: starts in parallel do not all measure; a failed mark only costs a measure.
      touch(mark, now);
    }
    for (const child of Deno.readDirSync(root)) {
      try {
        entries.push(measure(path.join(root, child.name), child.name));
      } catch {
        // Vanished meanwhile, or unreadable: left alone.
      }
    }
  } catch {
    return []; // No tool-output folder yet.
  }
  const removed: string[] = [];
  const remove = (entry: Entry) => {
    try {
      Deno.removeSync(entry.path, { recursive: true });
      removed.push(entry.path);
      return true;
    } catch {
      return false;
    }
  };
  let total = entries.reduce((sum, entry) => sum + entry.bytes, 0);
  const candidates = entries.filter((entry) => !keep.has(entry.name))
    .sort((a, b) => a.changed - b.changed);
  for (const entry of candidates) {
    if (now - entry.changed <= maxAge && total <= maxBytes) continue;
    if (remove(entry)) total -= entry.bytes;
  }
  return removed;
}
