/**
 * Shared output truncation. A tool output longer than the limit keeps its head
 * and tail in the history, with a notice naming how much was cut and where the
 * whole text was written (`<dataDir>/tool-output/<session>/<callId>.txt`, a
 * folder of the session's own that the file tools may read), so the model
 * can read the rest on purpose instead of drowning in it.
 *
 * `OutputSpool` does the same for output that arrives in pieces (bash), with
 * memory bounded by the limit however much the process prints.
 *
 * A spill file that cannot be written (a full disk, a data folder that is
 * not writable) loses nothing silently: head and tail are kept all the same,
 * and the notice says the rest could not be kept and why.
 */
import * as path from "../lib/path.ts";
import { safeSegment, spillFolder } from "../store/tool_output.ts";

/** Characters of output kept in the history. */
export const DEFAULT_OUTPUT_LIMIT = 30_000;

/**
 * Bytes one spill file may hold. A command printing without end (`yes`,
 * a runaway log) would otherwise fill the disk under the data folder; what
 * comes after the cap is counted and its tail still kept in the history,
 * but not written.
 */
export const MAX_SPILL_BYTES = 32 * 1024 * 1024;

function concat(first: Uint8Array, second: Uint8Array): Uint8Array {
  const out = new Uint8Array(first.length + second.length);
  out.set(first);
  out.set(second, first.length);
  return out;
}

/** The last line of a spill file that reached the cap. */
export function spillCapNote(): string {
  return `\n… [output beyond ${MAX_SPILL_BYTES / 1024 / 1024} MiB not kept in this file] …\n`;
}

export interface TruncateOptions {
  /** Names the spill file. */
  callId: string;
  /** Names the spill folder. */
  sessionId: string;
  /** skiff's data folder; the file goes to `<dataDir>/tool-output/<session>/`. */
  dataDir: string;
  /** @default 30000 */
  limit?: number;
}

/**
 * A new file for the full output of a call, opened for writing: named by the
 * call id in the session's folder, with `-2`, `-3`… when a provider reuses
 * an id, so no spill is ever overwritten. Creates the folder.
 */
export function openSpillFile(
  options: Pick<TruncateOptions, "dataDir" | "sessionId" | "callId">,
): { file: string; handle: Deno.FsFile } {
  const folder = spillFolder(options.dataDir, options.sessionId);
  Deno.mkdirSync(folder, { recursive: true });
  const base = safeSegment(options.callId, "call");
  for (let attempt = 1;; attempt++) {
    const file = path.join(folder, attempt === 1 ? `${base}.txt` : `${base}-${attempt}.txt`);
    try {
      return { file, handle: Deno.openSync(file, { write: true, createNew: true }) };
    } catch (error) {
      if (!(error instanceof Deno.errors.AlreadyExists) || attempt >= 1000) throw error;
    }
  }
}

function writeWhole(handle: Deno.FsFile, bytes: Uint8Array): void {
  let offset = 0;
  while (offset < bytes.length) offset += handle.writeSync(bytes.subarray(offset));
}

export function truncationNotice(omitted: number, file: string): string {
  return `… [${omitted} characters truncated; full output: ${file}] …`;
}

/** Characters of an error's message a notice carries. */
const REASON_CHARACTERS = 200;

/** Why writing a spill file failed, short enough for a notice. */
function failureReason(error: unknown): string {
  const message = (error instanceof Error ? error.message : String(error)).replaceAll("\n", " ");
  return message.length > REASON_CHARACTERS
    ? `${message.slice(0, REASON_CHARACTERS - 1)}…`
    : message;
}

/** The notice of a cut whose full text could not be saved at all. */
export function notKeptNotice(omitted: number, reason: string): string {
  return `… [${omitted} characters truncated and lost: the full output could not be saved (${reason}); to see them, run it again with its output filtered or redirected to a file] …`;
}

/** The notice of a cut whose spill file holds only the beginning of the text. */
function partlyKeptNotice(omitted: number, file: string, bytes: number, reason: string): string {
  return `… [${omitted} characters truncated; ${file} holds only the first ${bytes} bytes of the output: the rest could not be saved (${reason})] …`;
}

type Notice = (omitted: number) => string;

/**
 * Head and tail sizes whose sum plus the notice stays within `limit`, so a
 * truncated text is never truncated (and its spill file overwritten) again.
 */
function budget(limit: number, notice: Notice): { head: number; tail: number } {
  const room = Math.max(0, limit - notice(Number.MAX_SAFE_INTEGER).length - 4);
  const head = Math.ceil(room / 2);
  return { head, tail: room - head };
}

/**
 * Text within `limit` comes back unchanged. Longer text is written whole to
 * the spill file (folder created) and comes back as head + notice + tail.
 * Needs write access to `dataDir`.
 */
export function truncateOutput(text: string, options: TruncateOptions): Promise<string> {
  return Promise.resolve().then(() => truncateNow(text, options));
}

function truncateNow(text: string, options: TruncateOptions): string {
  const limit = options.limit ?? DEFAULT_OUTPUT_LIMIT;
  if (text.length <= limit) return text;
  let notice: Notice;
  let spill: { file: string; handle: Deno.FsFile } | null = null;
  try {
    spill = openSpillFile(options);
    const bytes = new TextEncoder().encode(text);
    writeWhole(
      spill.handle,
      bytes.length <= MAX_SPILL_BYTES
        ? bytes
        : concat(bytes.subarray(0, MAX_SPILL_BYTES), new TextEncoder().encode(spillCapNote())),
    );
    const file = spill.file;
    notice = (omitted) => truncationNotice(omitted, file);
  } catch (error) {
    const reason = failureReason(error);
    const file = spill?.file;
    notice = file
      ? (omitted) => partlyKeptNotice(omitted, file, spilledSize(file), reason)
      : (omitted) => notKeptNotice(omitted, reason);
  } finally {
    spill?.handle.close();
  }
  const { head, tail } = budget(limit, notice);
  return assemble(text.slice(0, head), tail > 0 ? text.slice(-tail - 1) : "", text.length, notice);
}

/** Bytes a spill file that failed part-way holds. */
function spilledSize(file: string): number {
  try {
    return Deno.statSync(file).size;
  } catch {
    return 0;
  }
}

/**
 * Head, notice, tail. `tailWithPrevious` is the tail plus the character
 * before it. A cut in the middle of a line leaves a fragment that reads like
 * a whole line ("31" of "3161"), so each end is cut back to a line boundary
 * when one is within its second half.
 */
function assemble(
  head: string,
  tailWithPrevious: string,
  total: number,
  notice: Notice,
  limit = Infinity,
): string {
  const room = Math.max(0, limit - notice(total).length - 4);
  if (head.length + tailWithPrevious.length - 1 > room) {
    head = head.slice(0, Math.min(head.length, Math.ceil(room / 2)));
    tailWithPrevious = tailWithPrevious.slice(-(room - head.length) - 1);
  }
  const headEnd = head.lastIndexOf("\n");
  if (headEnd >= head.length / 2) head = head.slice(0, headEnd + 1);
  let tail = tailWithPrevious.slice(1);
  if (tailWithPrevious[0] !== "\n") {
    const tailStart = tail.indexOf("\n");
    if (tailStart !== -1 && tailStart < tail.length / 2) tail = tail.slice(tailStart + 1);
  }
  const before = head.endsWith("\n") ? head : `${head}\n`;
  return `${before}${notice(total - head.length - tail.length)}\n${tail}`;
}

/**
 * Collects streamed output. Up to `limit` characters stay in memory; past
 * that the spill file is opened, everything so far written to it, and from
 * then on only the head and a rolling tail are kept while the file gets the
 * rest. Needs write access to `dataDir`; without it (or when a write fails)
 * head and tail are kept all the same and `notKept` says why the rest is not.
 */
export class OutputSpool {
  readonly limit: number;
  readonly #options: TruncateOptions;
  /** The spill file; "" until the output outgrows the limit, or when it could not be created. */
  file = "";
  /** Why the full output is not (wholly) in a file, when it outgrew the limit and could not be saved. */
  notKept: string | null = null;
  #chunks: string[] = [];
  /** The bytes `#chunks` were decoded from, for the spill file. */
  #byteChunks: Uint8Array[] = [];
  #length = 0;
  #head = "";
  #tail = "";
  #spill: Deno.FsFile | null = null;
  /** Past the limit: only head and tail are held. */
  #cut = false;
  /** Characters of tail kept, set when the output is cut. */
  #tailRoom = 0;
  #spilledBytes = 0;
  #encoder = new TextEncoder();
  #result: string | null = null;

  constructor(options: TruncateOptions) {
    this.limit = options.limit ?? DEFAULT_OUTPUT_LIMIT;
    this.#options = options;
  }

  /** Total characters received. */
  get length(): number {
    return this.#length;
  }

  /** The output outgrew the limit and a spill file was created for it. */
  get spilled(): boolean {
    return this.file !== "";
  }

  /** The output outgrew the limit: the history gets its head and tail. */
  get cut(): boolean {
    return this.#cut;
  }

  /**
   * `chunk` of text; `bytes`, what it was decoded from, go to the spill file
   * as they are. @default bytes the UTF-8 of chunk
   */
  append(chunk: string, bytes: Uint8Array = this.#encoder.encode(chunk)): void {
    if (!chunk && !bytes.length) return;
    this.#length += chunk.length;
    if (!this.#cut) {
      this.#chunks.push(chunk);
      this.#byteChunks.push(bytes);
      if (this.#length > this.limit) this.#startSpill();
      return;
    }
    this.#write(bytes);
    // One character more than the tail: assemble needs to know whether the tail starts a line.
    this.#tail = this.#tailRoom > 0 ? (this.#tail + chunk).slice(-this.#tailRoom - 1) : "";
  }

  #startSpill(): void {
    const all = this.#chunks.join("");
    this.#chunks = [];
    const allBytes = new Uint8Array(this.#byteChunks.reduce((sum, c) => sum + c.length, 0));
    let at = 0;
    for (const chunk of this.#byteChunks) {
      allBytes.set(chunk, at);
      at += chunk.length;
    }
    this.#byteChunks = [];
    this.#cut = true;
    try {
      const { file, handle } = openSpillFile(this.#options);
      this.file = file;
      this.#spill = handle;
    } catch (error) {
      this.notKept = failureReason(error);
    }
    this.#write(allBytes);
    const { head, tail } = budget(this.limit, this.#notice());
    this.#tailRoom = tail;
    this.#head = all.slice(0, head);
    this.#tail = tail > 0 ? all.slice(-tail - 1) : "";
  }

  /**
   * Writes to the spill file up to MAX_SPILL_BYTES, then the cap's note once.
   * A failed write closes the file: it keeps what it got, and `notKept` says why not the rest.
   */
  #write(printed: Uint8Array): void {
    if (!this.#spill || this.#spilledBytes >= MAX_SPILL_BYTES) return;
    let bytes = printed;
    const room = MAX_SPILL_BYTES - this.#spilledBytes;
    const capped = bytes.length >= room;
    if (capped) bytes = concat(bytes.subarray(0, room), this.#encoder.encode(spillCapNote()));
    try {
      writeWhole(this.#spill, bytes);
      this.#spilledBytes = capped ? MAX_SPILL_BYTES : this.#spilledBytes + bytes.length;
    } catch (error) {
      this.notKept = failureReason(error);
      this.#closeSpill();
    }
  }

  #closeSpill(): void {
    try {
      this.#spill?.close();
    } catch {
      // Already unusable: what it holds is on disk.
    }
    this.#spill = null;
  }

  /** The notice that replaces the middle, for what became of the full output. */
  #notice(): Notice {
    const reason = this.notKept;
    if (reason === null) return (omitted) => truncationNotice(omitted, this.file);
    if (!this.file) return (omitted) => notKeptNotice(omitted, reason);
    return (omitted) => partlyKeptNotice(omitted, this.file, spilledSize(this.file), reason);
  }

  /** The text for the history; closes the spill file. */
  finish(): string {
    if (this.#result !== null) return this.#result;
    if (!this.#cut) return this.#chunks.join("");
    this.#closeSpill();
    // A write that failed after the cut lengthens the notice: head and tail give way to it.
    this.#result = assemble(this.#head, this.#tail, this.#length, this.#notice(), this.limit);
    return this.#result;
  }
}
