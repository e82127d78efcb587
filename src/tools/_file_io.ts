/**
 * Reading and writing workspace text files without disturbing what the user
 * did not ask to change: the BOM, the line-ending style and the mode survive
 * every write, and a write is atomic (a temp file in the same folder, then a
 * rename), so a crash or a full disk never leaves half a file behind.
 *
 * Tools edit the LF form of a file (`TextDocument.text`) and hand it back to
 * `encodeText`, which restores the original endings and BOM.
 */
import * as path from "node:path";

/** How a text file is laid out on disk, beyond its characters. */
export interface TextDocument {
  /** Content with the BOM removed and, for a CRLF file, every CRLF turned into LF. */
  text: string;
  /** The file started with a UTF-8 byte-order mark. */
  bom: boolean;
  /** "\r\n" only when every line break in the file is CRLF; mixed files stay as they are. */
  eol: "\n" | "\r\n";
}

const BOM = "\uFEFF";
// ignoreBOM keeps the mark in the decoded text, so decodeText can see it and put it back.
const decoder = new TextDecoder("utf-8", { ignoreBOM: true });
const encoder = new TextEncoder();

/** The file's bytes, or null when it does not exist. Needs `--allow-read`. */
export async function readFileOrNull(file: string): Promise<Uint8Array | null> {
  try {
    return await Deno.readFile(file);
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

/** Which line break a file uses: CRLF only when no bare LF appears. */
export function detectEol(text: string): "\n" | "\r\n" {
  const crlf = text.split("\r\n").length - 1;
  if (crlf === 0) return "\n";
  const lf = text.split("\n").length - 1;
  return crlf === lf ? "\r\n" : "\n";
}

export function decodeText(bytes: Uint8Array): TextDocument {
  let text = decoder.decode(bytes);
  const bom = text.startsWith(BOM);
  if (bom) text = text.slice(1);
  const eol = detectEol(text);
  if (eol === "\r\n") text = text.replaceAll("\r\n", "\n");
  return { text, bom, eol };
}

/** The bytes for `text` (LF form) laid out like `like`: same endings, same BOM. */
export function encodeText(text: string, like: Pick<TextDocument, "bom" | "eol">): Uint8Array {
  let out = like.eol === "\r\n" ? text.replaceAll("\r\n", "\n").replaceAll("\n", "\r\n") : text;
  if (like.bom && !out.startsWith(BOM)) out = BOM + out;
  return encoder.encode(out);
}

/** Text the model sent, brought to LF so it compares with `TextDocument.text`. */
export function toLf(text: string): string {
  return text.replaceAll("\r\n", "\n");
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

/** Lines of an LF text as an editor counts them: "a\nb\n" has 2, "" has 0. */
/** "1 line", "12 lines": a count as the model reads it. */
export function linesText(count: number): string {
  return count === 1 ? "1 line" : `${count} lines`;
}

export function countLines(text: string): number {
  if (text === "") return 0;
  const breaks = text.split("\n").length - 1;
  return text.endsWith("\n") ? breaks : breaks + 1;
}

/**
 * A file is binary when it holds a NUL byte, is not valid UTF-8, or is mostly
 * control characters. Only the first 8 KiB are looked at: enough to tell, and
 * cheap on a huge file.
 */
export function looksBinary(bytes: Uint8Array): boolean {
  const sample = bytes.subarray(0, 8192);
  if (sample.includes(0)) return true;
  try {
    // stream: a multi-byte character cut at the sample's edge is not an error.
    new TextDecoder("utf-8", { fatal: true }).decode(sample, {
      stream: sample.length < bytes.length,
    });
  } catch {
    return true;
  }
  let control = 0;
  for (const byte of sample) {
    if (byte < 32 && byte !== 9 && byte !== 10 && byte !== 13 && byte !== 12) control++;
  }
  return sample.length > 0 && control / sample.length > 0.1;
}

/** What the atomic writer needs; a test swaps it to make a write fail halfway. */
export interface FileWriter {
  write(file: string, bytes: Uint8Array): Promise<void>;
  remove(file: string): Promise<void>;
}

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
 * replaces, creating missing parent folders. Needs `--allow-read` and
 * `--allow-write` on the folder.
 */
export function writeFileAtomic(file: string, bytes: Uint8Array): Promise<void> {
  return writes.write(file, bytes);
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

export const diskWriter: FileWriter = {
  write: writeFileAtomic,
  remove: (file) => writes.remove(file),
};
