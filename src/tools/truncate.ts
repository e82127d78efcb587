/**
 * Shared output truncation. A tool output longer than the limit keeps its head
 * and tail in the history, with a notice naming how much was cut and where the
 * whole text was written (`<dataDir>/tool-output/<session>/<callId>.txt`, a
 * folder of the session's own that the file tools may read), so the model
 * can read the rest on purpose instead of drowning in it.
 *
 * `OutputSpool` does the same for output that arrives in pieces (bash), with
 * memory bounded by the limit however much the process prints.
 */
import * as path from "node:path";
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

/**
 * Head and tail sizes whose sum plus the notice stays within `limit`, so a
 * truncated text is never truncated (and its spill file overwritten) again.
 */
function budget(limit: number, file: string): { head: number; tail: number } {
  const room = Math.max(0, limit - truncationNotice(Number.MAX_SAFE_INTEGER, file).length - 4);
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
  const { file, handle } = openSpillFile(options);
  const bytes = new TextEncoder().encode(text);
  try {
    writeWhole(
      handle,
      bytes.length <= MAX_SPILL_BYTES
        ? bytes
        : concat(bytes.subarray(0, MAX_SPILL_BYTES), new TextEncoder().encode(spillCapNote())),
    );
  } finally {
    handle.close();
  }
  const { head, tail } = budget(limit, file);
  return assemble(text.slice(0, head), tail > 0 ? text.slice(-tail - 1) : "", text.length, file);
}

/**
 * Head, notice, tail. `tailWithPrevious` is the tail plus the character
 * before it. A cut in the middle of a line leaves a fragment that reads like
 * a whole line ("31" of "3161"), so each end is cut back to a line boundary
 * when one is within its second half.
 */
function assemble(head: string, tailWithPrevious: string, total: number, file: string): string {
  const headEnd = head.lastIndexOf("\n");
  if (headEnd >= head.length / 2) head = head.slice(0, headEnd + 1);
  let tail = tailWithPrevious.slice(1);
  if (tailWithPrevious[0] !== "\n") {
    const tailStart = tail.indexOf("\n");
    if (tailStart !== -1 && tailStart < tail.length / 2) tail = tail.slice(tailStart + 1);
  }
  const notice = truncationNotice(total - head.length - tail.length, file);
  const before = head.endsWith("\n") ? head : `${head}\n`;
  return `${before}${notice}\n${tail}`;
}

/**
 * Collects streamed output. Up to `limit` characters stay in memory; past
 * that the spill file is opened, everything so far written to it, and from
 * then on only the head and a rolling tail are kept while the file gets the
 * rest. Needs write access to `dataDir`.
 */
export class OutputSpool {
  readonly limit: number;
  readonly #options: TruncateOptions;
  /** The spill file; "" until the output outgrows the limit. */
  file = "";
  #chunks: string[] = [];
  /** The bytes `#chunks` were decoded from, for the spill file. */
  #byteChunks: Uint8Array[] = [];
  #length = 0;
  #head = "";
  #tail = "";
  #spill: Deno.FsFile | null = null;
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

  get spilled(): boolean {
    return this.#spill !== null;
  }

  /**
   * `chunk` of text; `bytes`, what it was decoded from, go to the spill file
   * as they are. @default bytes the UTF-8 of chunk
   */
  append(chunk: string, bytes: Uint8Array = this.#encoder.encode(chunk)): void {
    if (!chunk && !bytes.length) return;
    this.#length += chunk.length;
    if (!this.#spill) {
      this.#chunks.push(chunk);
      this.#byteChunks.push(bytes);
      if (this.#length > this.limit) this.#startSpill();
      return;
    }
    this.#write(bytes);
    const { tail } = budget(this.limit, this.file);
    // One character more than the tail: assemble needs to know whether the tail starts a line.
    this.#tail = tail > 0 ? (this.#tail + chunk).slice(-tail - 1) : "";
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
    const { file, handle } = openSpillFile(this.#options);
    this.file = file;
    this.#spill = handle;
    this.#write(allBytes);
    const { head, tail } = budget(this.limit, this.file);
    this.#head = all.slice(0, head);
    this.#tail = tail > 0 ? all.slice(-tail - 1) : "";
  }

  /** Writes to the spill file up to MAX_SPILL_BYTES, then the cap's note once. */
  #write(printed: Uint8Array): void {
    if (this.#spilledBytes >= MAX_SPILL_BYTES) return;
    let bytes = printed;
    const room = MAX_SPILL_BYTES - this.#spilledBytes;
    if (bytes.length >= room) {
      bytes = concat(bytes.subarray(0, room), this.#encoder.encode(spillCapNote()));
      this.#spilledBytes = MAX_SPILL_BYTES;
    } else this.#spilledBytes += bytes.length;
    writeWhole(this.#spill!, bytes);
  }

  /** The text for the history; closes the spill file. */
  finish(): string {
    if (this.#result !== null) return this.#result;
    if (!this.#spill) return this.#chunks.join("");
    this.#spill.close();
    this.#result = assemble(this.#head, this.#tail, this.#length, this.file);
    return this.#result;
  }
}
