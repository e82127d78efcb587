/**
 * The terminal's keys as a stream: stdin in raw mode, decoded by KeyDecoder,
 * handed to whichever consumer holds the keys now (the editor, or an inline
 * question that borrows them). A lone Esc is delivered once no byte has
 * followed it for `escapeMs`. Bracketed paste is switched on while reading.
 */
import { type Key, KeyDecoder } from "./keys.ts";
import { canRedraw } from "../style.ts";

/** @default 40 */
export const ESCAPE_MS = 40;

export interface KeyStream {
  read(buffer: Uint8Array): Promise<number | null>;
  setRaw?(raw: boolean): void;
}

export class KeySource {
  readonly #decoder = new KeyDecoder();
  #consumers: ((key: Key) => void)[] = [];
  #escapeTimer: ReturnType<typeof setTimeout> | undefined;
  #stopped = false;

  constructor(
    private readonly input: KeyStream = Deno.stdin,
    private readonly write: (text: string) => void = (text) =>
      Deno.stdout.writeSync(new TextEncoder().encode(text)),
    private readonly escapeMs = ESCAPE_MS,
    /** Off for TERM=dumb, where no escape sequence is written. @default canRedraw() */
    private readonly bracketedPaste = canRedraw(),
  ) {}

  /** Start reading; `consumer` gets every key until another borrows them. Resolves at end of input. */
  async run(consumer: (key: Key) => void): Promise<void> {
    this.#consumers = [consumer];
    this.input.setRaw?.(true);
    if (this.bracketedPaste) this.write("\x1b[?2004h");
    const buffer = new Uint8Array(4096);
    let first = true;
    try {
      while (!this.#stopped) {
        const count = await this.input.read(buffer);
        if (count === null) break;
        // What was typed before raw mode went through the terminal's cooked
        // mode, which turned Enter into "\n": at the end of the type-ahead it is Enter.
        if (first && count > 0 && buffer[count - 1] === 0x0a) buffer[count - 1] = 0x0d;
        first = false;
        this.#deliver(this.#decoder.feed(buffer.subarray(0, count)));
      }
    } finally {
      this.stop();
    }
  }

  #deliver(keys: Key[]): void {
    clearTimeout(this.#escapeTimer);
    for (const key of keys) {
      if (key.kind === "text" && key.text && this.#consumers.length > 1) {
        // A question that borrowed the keys answers to one key, and one read
        // can hold more ("r" and the reason typed at once): it gets one
        // character at a time, and what follows its answer goes to whoever
        // holds the keys next.
        for (const char of key.text) this.#consumers.at(-1)?.({ kind: "text", text: char });
      } else {
        this.#consumers.at(-1)?.(key);
      }
    }
    if (this.#decoder.waiting) {
      this.#escapeTimer = setTimeout(() => this.#deliver(this.#decoder.flush()), this.escapeMs);
    }
  }

  /** Route keys to `consumer` until the returned function is called. */
  borrow(consumer: (key: Key) => void): () => void {
    this.#consumers.push(consumer);
    return () => {
      this.#consumers = this.#consumers.filter((other) => other !== consumer);
    };
  }

  /** Give the terminal back: bracketed paste off, cooked mode. */
  stop(): void {
    if (this.#stopped) return;
    this.#stopped = true;
    clearTimeout(this.#escapeTimer);
    if (this.bracketedPaste) this.write("\x1b[?2004l");
    try {
      this.input.setRaw?.(false);
    } catch { /* the terminal is gone */ }
  }
}
