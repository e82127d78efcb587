/**
 * Undo of the last prompt: put back every file that prompt changed, from the
 * snapshots taken before its first change. A file that changed on disk since
 * skiff last wrote it is left alone and named — undo never destroys work it
 * did not make.
 */
import { hashContent } from "../tools/file_ledger.ts";

export interface UndoSnapshot {
  path: string;
  /** Content before the change; null when the file did not exist. */
  content: Uint8Array | null;
}

export interface UndoReport {
  turn: number | null;
  restored: string[];
  removed: string[];
  refused: { path: string; reason: string }[];
}

function readOrNull(path: string): Uint8Array | null {
  try {
    return Deno.readFileSync(path);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) return null;
    throw error;
  }
}

/**
 * `knownHashes` maps a path to the hash of the content skiff last wrote or
 * read there; the file must still have that content to be undone.
 */
export function undoSnapshots(
  snapshots: UndoSnapshot[],
  knownHashes: Map<string, string>,
): Omit<UndoReport, "turn"> {
  const report: Omit<UndoReport, "turn"> = { restored: [], removed: [], refused: [] };
  for (const snapshot of snapshots) {
    const current = readOrNull(snapshot.path);
    if (current !== null) {
      const known = knownHashes.get(snapshot.path);
      if (known === undefined || known !== hashContent(current)) {
        report.refused.push({
          path: snapshot.path,
          reason: "changed on disk since skiff changed it; left as it is",
        });
        continue;
      }
    }
    if (snapshot.content === null) {
      if (current !== null) {
        Deno.removeSync(snapshot.path);
        report.removed.push(snapshot.path);
      }
      continue;
    }
    const temp = `${snapshot.path}.skiff-undo-${crypto.randomUUID().slice(0, 8)}`;
    Deno.mkdirSync(snapshot.path.slice(0, snapshot.path.lastIndexOf("/")) || "/", {
      recursive: true,
    });
    let mode: number | undefined;
    try {
      mode = Deno.statSync(snapshot.path).mode ?? undefined;
    } catch { /* recreated file: default mode */ }
    Deno.writeFileSync(temp, snapshot.content, mode !== undefined ? { mode } : {});
    Deno.renameSync(temp, snapshot.path);
    report.restored.push(snapshot.path);
  }
  return report;
}
