/**
 * Turns the bytes a terminal sends in raw mode into keys. A chunk may end in
 * the middle of an escape sequence or a paste, so the decoder keeps what it
 * has not understood yet. Bracketed paste (`ESC[200~ … ESC[201~`) arrives as
 * one `paste` key, so a pasted newline never sends the message.
 */

export type Key =
  | { kind: "text"; text: string }
  | { kind: "paste"; text: string }
  | {
    kind:
      | "enter"
      | "newline"
      | "backspace"
      | "delete"
      | "left"
      | "right"
      | "up"
      | "down"
      | "home"
      | "end"
      | "tab"
      | "escape"
      | "ctrl-a"
      | "ctrl-c"
      | "ctrl-d"
      | "ctrl-e"
      | "ctrl-k"
      | "ctrl-o"
      | "ctrl-r"
      | "ctrl-t"
      | "ctrl-u"
      | "ctrl-w";
  };

const PASTE_START = "\x1b[200~";
const PASTE_END = "\x1b[201~";

/** Escape sequences this editor knows; anything else is dropped whole. */
const SEQUENCES: Record<string, Key["kind"]> = {
  "\x1b[A": "up",
  "\x1b[B": "down",
  "\x1b[C": "right",
  "\x1b[D": "left",
  "\x1bOA": "up",
  "\x1bOB": "down",
  "\x1bOC": "right",
  "\x1bOD": "left",
  "\x1b[H": "home",
  "\x1b[F": "end",
  "\x1bOH": "home",
  "\x1bOF": "end",
  "\x1b[1~": "home",
  "\x1b[4~": "end",
  "\x1b[3~": "delete",
  // Alt+Enter, and Shift+Enter as kitty / xterm modifyOtherKeys send it.
  "\x1b\r": "newline",
  "\x1b\n": "newline",
  "\x1b[13;2u": "newline",
  "\x1b[27;2;13~": "newline",
};

const CONTROLS: Record<string, Key["kind"]> = {
  "\r": "enter",
  "\n": "newline",
  "\x7f": "backspace",
  "\b": "backspace",
  "\t": "tab",
  "\x01": "ctrl-a",
  "\x03": "ctrl-c",
  "\x04": "ctrl-d",
  "\x05": "ctrl-e",
  "\x0b": "ctrl-k",
  "\x0f": "ctrl-o",
  "\x12": "ctrl-r",
  "\x14": "ctrl-t",
  "\x15": "ctrl-u",
  "\x17": "ctrl-w",
};

/** A stateful decoder: feed it chunks, get the keys complete so far. */
export class KeyDecoder {
  #pending = "";
  #paste: string | undefined;
  readonly #decoder = new TextDecoder();

  /** Keys in this chunk; a lone ESC is held until `flush` (it may start a sequence). */
  feed(chunk: Uint8Array | string): Key[] {
    this.#pending += typeof chunk === "string"
      ? chunk
      : this.#decoder.decode(chunk, { stream: true });
    const keys: Key[] = [];
    let text = "";
    const flushText = () => {
      if (text) keys.push({ kind: "text", text });
      text = "";
    };
    while (this.#pending) {
      if (this.#paste !== undefined) {
        const end = this.#pending.indexOf(PASTE_END);
        if (end < 0) {
          // Keep a possible partial end marker for the next chunk.
          const keep = partialSuffix(this.#pending, PASTE_END);
          this.#paste += this.#pending.slice(0, this.#pending.length - keep);
          this.#pending = this.#pending.slice(this.#pending.length - keep);
          break;
        }
        this.#paste += this.#pending.slice(0, end);
        this.#pending = this.#pending.slice(end + PASTE_END.length);
        keys.push({
          kind: "paste",
          text: this.#paste.replaceAll("\r\n", "\n").replaceAll("\r", "\n"),
        });
        this.#paste = undefined;
        continue;
      }
      const first = this.#pending[0];
      if (first === "\x1b") {
        if (this.#pending.startsWith(PASTE_START)) {
          flushText();
          this.#pending = this.#pending.slice(PASTE_START.length);
          this.#paste = "";
          continue;
        }
        const sequence = escapeSequence(this.#pending);
        if (sequence === undefined) break; // incomplete: wait for more
        flushText();
        this.#pending = this.#pending.slice(sequence.length);
        if (sequence === "\x1b") keys.push({ kind: "escape" });
        else if (SEQUENCES[sequence]) keys.push({ kind: SEQUENCES[sequence] } as Key);
        continue;
      }
      this.#pending = this.#pending.slice(1);
      const control = CONTROLS[first];
      if (control) {
        flushText();
        keys.push({ kind: control } as Key);
      } else if (first >= " ") text += first;
    }
    flushText();
    return keys;
  }

  /** A lone ESC left pending is the Escape key once no more bytes follow it. */
  flush(): Key[] {
    if (this.#pending === "\x1b") {
      this.#pending = "";
      return [{ kind: "escape" }];
    }
    return [];
  }

  /** True while a lone ESC waits for what may follow it. */
  get waiting(): boolean {
    return this.#pending === "\x1b";
  }
}

/** How long `text` (starting with ESC) runs as one sequence; undefined: not complete yet. */
function escapeSequence(text: string): string | undefined {
  if (text.length === 1) return undefined;
  const second = text[1];
  if (second === "[") {
    for (let i = 2; i < text.length; i++) {
      const code = text.charCodeAt(i);
      if (code >= 0x40 && code <= 0x7e) return text.slice(0, i + 1);
    }
    return undefined;
  }
  if (second === "O") return text.length >= 3 ? text.slice(0, 3) : undefined;
  if (second === "\r" || second === "\n") return text.slice(0, 2);
  if (second === "\x1b") return "\x1b";
  // Alt+letter: dropped as one unit.
  return text.slice(0, 2);
}

/** The length of the longest end of `text` that begins `marker`. */
function partialSuffix(text: string, marker: string): number {
  for (let length = Math.min(marker.length - 1, text.length); length > 0; length--) {
    if (marker.startsWith(text.slice(text.length - length))) return length;
  }
  return 0;
}
