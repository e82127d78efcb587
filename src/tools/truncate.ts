/**
 * Shared output truncation. A tool output longer than the limit keeps its head
 * and tail in the history, with a notice naming how much was cut and where the
 * whole text was written (`<dataDir>/tool-output/<callId>.txt`), so the model
 * can read the rest on purpose instead of drowning in it.
 *
 * `OutputSpool` does the same for output that arrives in pieces (bash), with
 * memory bounded by the limit however much the process prints.
 */
import * as path from "node:path";

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
  /** skiff's data folder; the file goes to `<dataDir>/tool-output/`. */
  dataDir: string;
  /** @default 30000 */
  limit?: number;
}

/** Where the full output of a call is written when it is too long. */
export function spillPath(dataDir: string, callId: string): string {
  const safe = callId.replace(/[^A-Za-z0-9_.-]/g, "_") || "call";
  return path.join(dataDir, "tool-output", `${safe}.txt`);
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
export async function truncateOutput(text: string, options: TruncateOptions): Promise<string> {
  const limit = options.limit ?? DEFAULT_OUTPUT_LIMIT;
  if (text.length <= limit) return text;
  const file = spillPath(options.dataDir, options.callId);
  await Deno.mkdir(path.dirname(file), { recursive: true });
  const bytes = new TextEncoder().encode(text);
  await Deno.writeFile(
    file,
    bytes.length <= MAX_SPILL_BYTES
      ? bytes
      : concat(bytes.subarray(0, MAX_SPILL_BYTES), new TextEncoder().encode(spillCapNote())),
  );
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
  readonly file: string;
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
    this.file = spillPath(options.dataDir, options.callId);
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
    Deno.mkdirSync(path.dirname(this.file), { recursive: true });
    this.#spill = Deno.openSync(this.file, { write: true, create: true, truncate: true });
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
    let offset = 0;
    while (offset < bytes.length) offset += this.#spill!.writeSync(bytes.subarray(offset));
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
