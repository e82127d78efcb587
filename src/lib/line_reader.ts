/**
 * Lines of a byte stream: what a child process (an MCP server, a sandbox
 * helper) answers on a pipe. Linear in what arrives, however it is cut into
 * chunks: each chunk is searched for newlines once, and the pieces of an
 * unfinished line are kept as they came, joined once when its newline does
 * come. A line longer than its bound is dropped whole (up to its newline),
 * so a child that never sends one costs no more than the bound in memory.
 * Imports nothing.
 */

/** A line's bound unless told otherwise: 16 Mi characters. */
export const MAX_LINE_CHARS = 16 * 1024 * 1024;

/** Splits text that arrives in chunks into lines without their `\n`. */
export class LineSplitter {
  #parts: string[] = [];
  #length = 0;
  /** Dropping the rest of a line that passed the bound, until its newline. */
  #dropping = false;

  /** `onTooLong` hears of each line dropped for passing `maxLineChars`. */
  constructor(
    readonly maxLineChars: number = MAX_LINE_CHARS,
    readonly onTooLong?: (bound: number) => void,
  ) {}

  /** The lines `text` completes, in order. */
  push(text: string): string[] {
    const lines: string[] = [];
    let start = 0;
    for (let end = text.indexOf("\n"); end >= 0; end = text.indexOf("\n", start)) {
      const line = this.#take(text.slice(start, end));
      if (line !== null) lines.push(line);
      start = end + 1;
    }
    if (start < text.length) this.#keep(text.slice(start));
    return lines;
  }

  /** What is left once the stream has ended: an unfinished line, or null. */
  end(): string | null {
    const rest = this.#dropping ? "" : this.#parts.join("");
    this.#reset();
    return rest || null;
  }

  #keep(piece: string): void {
    if (this.#dropping) return;
    this.#length += piece.length;
    if (this.#length > this.maxLineChars) {
      this.#reset();
      this.#dropping = true;
      this.onTooLong?.(this.maxLineChars);
      return;
    }
    this.#parts.push(piece);
  }

  /** The line that `last` finishes, or null when it was dropped. */
  #take(last: string): string | null {
    if (this.#dropping) {
      this.#reset();
      return null;
    }
    if (this.#length + last.length > this.maxLineChars) {
      this.#reset();
      this.onTooLong?.(this.maxLineChars);
      return null;
    }
    const line = this.#parts.length ? this.#parts.join("") + last : last;
    this.#reset();
    return line;
  }

  #reset(): void {
    this.#parts = [];
    this.#length = 0;
    this.#dropping = false;
  }
}

export interface LineReader {
  /** The next line without its newline; at the end, what is left, then null. */
  next(): Promise<string | null>;
}

/** A failed read ends the lines, as the stream's end does. The read keeps no event loop alive once its child is unref'd. */
export function lineReader(
  stream: ReadableStream<Uint8Array>,
  maxLineChars: number = MAX_LINE_CHARS,
): LineReader {
  const reader = stream.pipeThrough(new TextDecoderStream()).getReader();
  const splitter = new LineSplitter(maxLineChars);
  const ready: string[] = [];
  let ended = false;
  return {
    async next(): Promise<string | null> {
      for (;;) {
        if (ready.length) return ready.shift()!;
        if (ended) return null;
        const { done, value } = await reader.read().catch(() => ({ done: true, value: "" }));
        if (done) {
          ended = true;
          return splitter.end();
        }
        ready.push(...splitter.push(value));
      }
    },
  };
}
