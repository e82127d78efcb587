/**
 * The atomic file write under every file tool and the confined writer: a
 * temp file in the same folder, then a rename, so a crash or a full disk
 * never leaves half a file. Lives in the sandbox layer because the confined
 * writer (confined_writer_worker.ts) runs it on its Landlock-restricted
 * thread; the tools reach it through src/tools/files/_file_io.ts.
 */
import * as path from "../contracts/path.ts";

/**
 * Where the file tools' writes are carried out. By default on this thread;
 * the engine routes them to a confined writer (src/sandbox/confined_writer.ts)
 * whose thread the kernel keeps inside the writable folders.
 */
export interface AtomicWrites {
  /** `writeFileAtomicSync`'s contract. */
  write(file: string, bytes: Uint8Array, mode?: number): Promise<void>;
  remove(file: string): Promise<void>;
}

/**
 * The atomic write itself, with synchronous calls only: Deno runs those on
 * the calling thread, which is the thread a Landlock restriction covers.
 * `mode` (default: the replaced file's, else 0o644) is set exactly.
 */
export function writeFileAtomicSync(file: string, bytes: Uint8Array, mode?: number): void {
  const folder = path.dirname(file);
  Deno.mkdirSync(folder, { recursive: true });
  let existing: Deno.FileInfo | null = null;
  try {
    existing = Deno.statSync(file);
  } catch (error) {
    if (!(error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory)) {
      throw error;
    }
  }
  if (existing?.isDirectory) throw new Error(`${file} is a directory`);
  const wanted = mode ?? existing?.mode ?? undefined;
  const temp = path.join(
    folder,
    `.${path.basename(file)}.skiff-${crypto.randomUUID().slice(0, 8)}.tmp`,
  );
  try {
    Deno.writeFileSync(temp, bytes, { createNew: true, mode: wanted ?? 0o644 });
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
