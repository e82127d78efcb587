/**
 * The one temp-file-and-rename writer: under every file tool, the confined
 * writer, the files skiff writes itself (src/sandbox/writer/host_write.ts)
 * and its own state files (git credential views, remembered permissions).
 * A temp file in the same folder, created new, then a rename, so a crash or
 * a full disk never leaves half a file, and whatever stood at the name (a
 * symbolic link included) is replaced, never written through. Synchronous
 * calls only, so the confined writer can run it on its Landlock-restricted
 * thread; the tools reach it through src/tools/files/_file_io.ts.
 */
import * as path from "./path.ts";

/**
 * Where the file tools' writes are carried out. By default on this thread;
 * the engine routes them to a confined writer (src/sandbox/writer/confined_writer.ts)
 * whose thread the kernel keeps inside the writable folders.
 */
export interface AtomicWrites {
  /** `writeFileAtomicSync`'s contract. */
  write(file: string, bytes: Uint8Array, mode?: number): Promise<void>;
  remove(file: string): Promise<void>;
}

/**
 * The name of a temporary file `writeAtomically` writes before its rename:
 * `.<name>.skiff-<8 hex>.tmp`, beside the file. A process killed between
 * the two leaves one; src/undo/temp_sweep.ts removes those.
 */
export const ATOMIC_TEMP_NAME = /^\..+\.skiff-[0-9a-f]{8}\.tmp$/;

/**
 * The atomic write itself, with synchronous calls only: Deno runs those on
 * the calling thread, which is the thread a Landlock restriction covers.
 * `mode` (default: the replaced regular file's) is set exactly; a new file
 * gets `newFileMode` (default 0o644) less the umask. The name is looked at,
 * not followed: a link there lends no mode and is replaced like a file.
 */
export function writeFileAtomicSync(
  file: string,
  bytes: Uint8Array,
  mode?: number,
  newFileMode = 0o644,
): void {
  const folder = path.dirname(file);
  Deno.mkdirSync(folder, { recursive: true });
  let existing: Deno.FileInfo | null = null;
  try {
    existing = Deno.lstatSync(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
      throw error;
    }
  }
  if (existing?.isDirectory) throw new Error(`${file} is a directory`);
  const wanted = mode ?? (existing?.isFile ? existing.mode ?? undefined : undefined);
  const temp = path.join(
    folder,
    `.${path.basename(file)}.skiff-${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    Deno.writeFileSync(temp, bytes, { createNew: true, mode: wanted ?? newFileMode });
    // writeFile's mode is filtered by the umask; chmod sets what the old file had.
    if (wanted != null) Deno.chmodSync(temp, wanted & 0o7777);
    Deno.renameSync(temp, file);
  } catch (error) {
    try {
      Deno.removeSync(temp);
    } catch { /* never written */ }
    throw error;
  }
}
