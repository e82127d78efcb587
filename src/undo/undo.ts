/**
 * Undo of the last prompt: put back every file that prompt changed, from the
 * snapshots taken before its first change. A file that changed on disk since
 * skiff last wrote it is left alone and named — undo never destroys work it
 * did not make. Nor does it follow a link: a path that no longer resolves to
 * itself (a folder on it became a symlink after the session) or lies outside
 * the allowed folders is refused, and `skiff undo` writes through the
 * confined writer, so the kernel re-checks the real path as it writes.
 */
import { ABSENT } from "../store/snapshots.ts";
import { FOLDER_MODE } from "./command_snapshots.ts";
import { type AtomicWrites, hashContent, writesOnThisThread } from "../tools/files/mod.ts";
import { isWithin, realpathLenient } from "../sandbox/paths.ts";

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
  /** The user prompt undone; null when there was nothing to undo. */
  prompt: number | null;
  restored: string[];
  removed: string[];
  /** Already as they were before the prompt (it left them so, or a killed undo put them back). */
  unchanged: string[];
  refused: { path: string; reason: string }[];
}

/** A file's content hash, or ABSENT when nothing (or no file) is there: the state undo compares. */
export function undoStateOf(path: string): string {
  try {
    return hashContent(Deno.readFileSync(path));
  } catch {
    return ABSENT;
  }
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
 * The file-type bits of a snapshot that is a symbolic link: its content is
 * the link's text, and undo puts the link back, never a copy of its target.
 */
export const LINK_MODE = 0o120000;

function isLink(snapshot: UndoSnapshot): boolean {
  return ((snapshot.mode ?? 0) & 0o170000) === LINK_MODE;
}

export interface UndoOptions {
  /** Folders undo may write in: the session's workspace and its `--add-dir`s. */
  roots: string[];
  /** Where the writes happen; `skiff undo` passes a confined writer. @default this thread */
  writes?: AtomicWrites;
}

/** Why `file` must not be touched now, or null when it is where it was. */
function displaced(file: string, roots: string[]): string | null {
  const real = realpathLenient(file);
  if (real !== file) {
    return `its path now leads to ${real} (a folder on it became a symlink); left as it is`;
  }
  if (!roots.some((root) => isWithin(realpathLenient(root), real))) {
    return "it is outside the session's workspace; pass its folder with --add-dir to undo it";
  }
  return null;
}

/**
 * `knownHashes` maps a path to the hash of the content skiff last wrote or
 * read there (one per session: a prompt's subagents keep their own); the
 * file must still have that content to be undone. A path that
 * cannot be put back is refused and named; the others are still undone.
 */
export async function undoSnapshots(
  snapshots: UndoSnapshot[],
  knownHashes: Map<string, string | string[]>,
  options: UndoOptions,
): Promise<Omit<UndoReport, "prompt">> {
  const report: Omit<UndoReport, "prompt"> = {
    restored: [],
    removed: [],
    unchanged: [],
    refused: [],
  };
  const writes = options.writes ?? writesOnThisThread;
  const isFolder = (snapshot: UndoSnapshot) => ((snapshot.mode ?? 0) & 0o170000) === FOLDER_MODE;
  // Files first; then the folders the prompt created, deepest first, once emptied.
  const folders = snapshots.filter(isFolder).sort((a, b) => b.path.length - a.path.length);
  for (const snapshot of [...snapshots.filter((s) => !isFolder(s)), ...folders]) {
    const reason = displaced(snapshot.path, options.roots);
    if (reason) {
      report.refused.push({ path: snapshot.path, reason });
      continue;
    }
    try {
      if (isFolder(snapshot)) await removeCreatedFolder(snapshot.path, report, writes);
      else if (isLink(snapshot)) restoreLink(snapshot, report);
      else await undoOne(snapshot, knownHashes, report, writes);
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

/** A folder the prompt created goes when nothing else is left in it. */
async function removeCreatedFolder(
  folder: string,
  report: Omit<UndoReport, "prompt">,
  writes: AtomicWrites,
): Promise<void> {
  let info: Deno.FileInfo;
  try {
    info = Deno.lstatSync(folder);
  } catch {
    return; // Gone already.
  }
  if (!info.isDirectory) throw new NotAFile();
  const left = [...Deno.readDirSync(folder)].length;
  if (left) {
    report.refused.push({
      path: folder,
      reason: `created by the prompt, but it holds ${left} entr${
        left === 1 ? "y" : "ies"
      } undo did not remove (made since, or ignored by git); left as it is`,
    });
    return;
  }
  await writes.remove(folder);
  report.removed.push(folder);
}

async function undoOne(
  snapshot: UndoSnapshot,
  knownHashes: Map<string, string | string[]>,
  report: Omit<UndoReport, "prompt">,
  writes: AtomicWrites,
): Promise<void> {
  const current = readOrNull(snapshot.path);
  if (asBefore(snapshot, current)) {
    report.unchanged.push(snapshot.path);
    return;
  }
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
      await writes.remove(snapshot.path);
      report.removed.push(snapshot.path);
    }
    return;
  }
  // No mode recorded: the atomic write keeps the current file's.
  await writes.write(snapshot.path, snapshot.content, snapshot.mode ?? undefined);
  report.restored.push(snapshot.path);
}

/**
 * Whether the file already is what the snapshot would put back: the same
 * bytes (and mode, where one was kept), or absent as it was. Nothing to
 * write and nothing to refuse — a second undo after a killed one finds its
 * files so.
 */
function asBefore(snapshot: UndoSnapshot, current: Uint8Array | null): boolean {
  if (current === null || snapshot.content === null) return current === snapshot.content;
  if (hashContent(current) !== hashContent(snapshot.content)) return false;
  if (snapshot.mode === null || snapshot.mode === undefined) return true;
  return (Deno.statSync(snapshot.path).mode ?? 0) % 0o10000 === snapshot.mode % 0o10000;
}

/**
 * Put back a symbolic link the prompt removed. Only where nothing is now:
 * whatever stands there was made since (undo never destroys work it did not
 * make). The link is made on this thread, after `displaced` checked its
 * folder; making a link writes no file's content and cannot replace an
 * existing name, and the confined writer's Worker has no permission to make
 * links (Deno asks for full read and write rights for that).
 */
function restoreLink(snapshot: UndoSnapshot, report: Omit<UndoReport, "prompt">): void {
  const text = new TextDecoder().decode(snapshot.content ?? new Uint8Array());
  let present: Deno.FileInfo | null = null;
  try {
    present = Deno.lstatSync(snapshot.path);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound)) throw error;
  }
  if (present) {
    const same = present.isSymlink && Deno.readLinkSync(snapshot.path) === text;
    if (!same) {
      report.refused.push({
        path: snapshot.path,
        reason: `the symbolic link to ${text} is to come back, but something was made there ` +
          "since; left as it is",
      });
    }
    return;
  }
  Deno.symlinkSync(text, snapshot.path);
  report.restored.push(snapshot.path);
}
