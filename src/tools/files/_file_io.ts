/**
 * Reading and writing workspace text files without disturbing what the user
 * did not ask to change: the BOM, the line-ending style and the mode survive
 * every write, and a write is atomic (a temp file in the same folder, then a
 * rename), so a crash or a full disk never leaves half a file behind.
 *
 * Tools edit the LF form of a file (`TextDocument.text`) and hand it back to
 * `encodeText`, which restores the original endings, BOM and encoding
 * (src/tools/files/_text_encoding.ts).
 */
import { type AtomicWrites, writeFileAtomicSync } from "../../lib/atomic_write.ts";
import { ToolError } from "../tool.ts";

export { type AtomicWrites, writeFileAtomicSync };
export { countLines, toLf } from "./text_lines.ts";

export {
  decodeText,
  detectEol,
  encodeText,
  looksBinary,
  type TextDocument,
} from "./_text_encoding.ts";

/**
 * The file's bytes, or null when it does not exist. Anything but a regular
 * file is refused before it is opened: opening a FIFO waits for a writer
 * that never comes, and a device never ends. Needs `--allow-read`.
 */
export async function readFileOrNull(file: string, shown = file): Promise<Uint8Array | null> {
  try {
    const info = await Deno.stat(file);
    if (!info.isFile) throw notRegularFile(shown);
    return await Deno.readFile(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** The refusal for a path that is a pipe, socket or device rather than a file. */
export function notRegularFile(shown: string): ToolError {
  return new ToolError(
    "bad_input",
    `${shown} is not a regular file (a pipe, socket or device); the file tools read and write regular files only.`,
    "Leave it alone, or use bash if a command is really meant to talk to it.",
  );
}

/**
 * `stat` that answers null for a missing path instead of throwing, without
 * the thread pool's round trip of the async call: the resolver has
 * just resolved the same path with a synchronous realpath.
 */
export function statOrNullSync(file: string): Deno.FileInfo | null {
  try {
    return Deno.statSync(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/** `stat` that answers null for a missing path instead of throwing. */
export async function statOrNull(file: string): Promise<Deno.FileInfo | null> {
  try {
    return await Deno.stat(file);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound || error instanceof Deno.errors.NotADirectory) {
      return null;
    }
    throw error;
  }
}

/**
 * `updated` with the final-newline state of `original`: a model that drops
 * (or adds) the newline at the end of a file changes a byte nobody asked for.
 */
export function keepFinalNewline(original: string, updated: string): string {
  if (original === "" || updated === "") return updated;
  const had = original.endsWith("\n");
  const has = updated.endsWith("\n");
  if (had && !has) return updated + "\n";
  if (!had && has) return updated.replace(/\n+$/, "");
  return updated;
}

/** "1 line", "12 lines": a count as the model reads it. */
export function linesText(count: number): string {
  return count === 1 ? "1 line" : `${count} lines`;
}

/** What the atomic writer needs; a test swaps it to make a write fail halfway. */
export interface FileWriter {
  /** `mode` (default: the replaced file's) is how a rollback puts a file's mode back. */
  write(file: string, bytes: Uint8Array, mode?: number): Promise<void>;
  remove(file: string): Promise<void>;
}

/** Writes on the calling thread, unconfined. */
export const writesOnThisThread: AtomicWrites = {
  write: (file, bytes, mode) =>
    Promise.resolve().then(() => writeFileAtomicSync(file, bytes, mode)),
  remove: (file) => Promise.resolve().then(() => Deno.removeSync(file)),
};

let writes: AtomicWrites = writesOnThisThread;

/** Send every later write of the file tools through `target` (null: this thread again). */
export function routeFileWrites(target: AtomicWrites | null): void {
  writes = target ?? writesOnThisThread;
}

/**
 * Write `bytes` to `file` atomically, keeping the mode of the file it
 * replaces unless `mode` is given, creating missing parent folders. Needs `--allow-read` and
 * `--allow-write` on the folder.
 */
export function writeFileAtomic(file: string, bytes: Uint8Array, mode?: number): Promise<void> {
  return writes.write(file, bytes, mode);
}

export const diskWriter: FileWriter = {
  write: writeFileAtomic,
  remove: (file) => writes.remove(file),
};
