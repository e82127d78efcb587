/**
 * Undo of the last prompt: put back every file that prompt changed, from the
 * snapshots taken before its first change. A file that changed on disk since
 * skiff last wrote it is left alone and named — undo never destroys work it
 * did not make.
 */
import * as path from "node:path";
import { ABSENT } from "../store/snapshots.ts";
import { hashContent } from "../tools/file_ledger.ts";

export interface UndoSnapshot {
  path: string;
  /** Content before the change; null when the file did not exist. */
  content: Uint8Array | null;
  /**
   * What the prompt left the file as: a content hash or "absent". Null when
   * the prompt never finished (a killed process); then the read ledger's
   * hashes decide.
   */
  after_hash?: string | null;
  /** Permission bits before the change. */
  mode?: number | null;
}

export interface UndoReport {
  turn: number | null;
  restored: string[];
  removed: string[];
  refused: { path: string; reason: string }[];
}

/** The file's bytes, null when nothing is there; throws for anything but a file. */
function readOrNull(file: string): Uint8Array | null {
  let info: Deno.FileInfo;
  try {
    info = Deno.statSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
  if (!info.isFile) throw new NotAFile();
  return Deno.readFileSync(file);
}

class NotAFile extends Error {}

/**
 * `knownHashes` maps a path to the hash of the content skiff last wrote or
 * read there (one per session: a prompt's subagents keep their own); the
 * file must still have that content to be undone. A path that
 * cannot be put back is refused and named; the others are still undone.
 */
export function undoSnapshots(
  snapshots: UndoSnapshot[],
  knownHashes: Map<string, string | string[]>,
): Omit<UndoReport, "turn"> {
  const report: Omit<UndoReport, "turn"> = { restored: [], removed: [], refused: [] };
  for (const snapshot of snapshots) {
    try {
      undoOne(snapshot, knownHashes, report);
    } catch (error) {
      report.refused.push({
        path: snapshot.path,
        reason: error instanceof NotAFile
          ? "something other than a file is there now (a folder?); left as it is"
          : `could not put it back (${(error as Error).message}); left as it is`,
      });
    }
  }
  return report;
}

function undoOne(
  snapshot: UndoSnapshot,
  knownHashes: Map<string, string | string[]>,
  report: Omit<UndoReport, "turn">,
): void {
  const current = readOrNull(snapshot.path);
  if (current !== null) {
    const known = snapshot.after_hash
      ? [snapshot.after_hash]
      : [knownHashes.get(snapshot.path) ?? []].flat();
    if (!known.includes(hashContent(current))) {
      report.refused.push({
        path: snapshot.path,
        reason: snapshot.after_hash === ABSENT
          ? "created on disk after skiff's change; left as it is"
          : "changed on disk since skiff changed it; left as it is",
      });
      return;
    }
  }
  if (snapshot.content === null) {
    if (current !== null) {
      Deno.removeSync(snapshot.path);
      report.removed.push(snapshot.path);
    }
    return;
  }
  const temp = `${snapshot.path}.skiff-undo-${crypto.randomUUID().slice(0, 8)}`;
  Deno.mkdirSync(path.dirname(snapshot.path), { recursive: true });
  let mode = snapshot.mode ?? undefined;
  if (mode === undefined) {
    try {
      mode = Deno.statSync(snapshot.path).mode ?? undefined;
    } catch { /* recreated file: default mode */ }
  }
  try {
    Deno.writeFileSync(temp, snapshot.content, mode !== undefined ? { mode } : {});
    // The umask may have narrowed it; the snapshot's bits are what the file had.
    if (mode !== undefined) Deno.chmodSync(temp, mode & 0o7777);
    Deno.renameSync(temp, snapshot.path);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch { /* never written */ }
    throw error;
  }
  report.restored.push(snapshot.path);
}
