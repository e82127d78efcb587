/**
 * Text held back from the screen while it may be the markup of a tool call
 * (text_tool_calls.ts): once the answer ends, a call read is never shown as
 * the answer, and text that was none is delivered then, once.
 */

/** The longest marker, so held-back text is bounded while a marker may be forming. */
const LONGEST_START = 32;

/**
 * Text that may be the start of call markup is held back from `onText`
 * until the answer ends: markup read as a call is never shown as the
 * answer, and anything else is delivered then, once.
 */
export class MarkupHold {
  #delivered = "";
  #pending = "";
  #holding = false;

  constructor(private readonly deliver: (text: string) => void) {}

  /** New text of the answer, as it streams. */
  offer(delta: string): void {
    this.#pending += delta;
    if (this.#holding) return;
    // A whole answer that opens like JSON may be a Llama 3 call: hold it all.
    if (!this.#delivered && mayBeBareCall(this.#pending)) return;
    const start = markupStart(this.#pending);
    if (start.whole) this.#holding = true;
    const safe = this.#pending.slice(0, start.index);
    this.#pending = this.#pending.slice(start.index);
    if (safe) this.#send(safe);
  }

  /** The answer ended: `text` is what it says apart from markup read as calls. */
  finish(text: string): void {
    const rest = text.startsWith(this.#delivered) ? text.slice(this.#delivered.length) : "";
    this.#pending = "";
    if (rest) this.#send(rest);
  }

  /** Deliver whatever is held (no call was read). */
  release(): void {
    const rest = this.#pending;
    this.#pending = "";
    if (rest) this.#send(rest);
  }

  #send(text: string): void {
    this.#delivered += text;
    this.deliver(text);
  }
}

/** The answer so far may still become a bare Llama 3 call (it opens with `{` or the python tag). */
function mayBeBareCall(text: string): boolean {
  const start = text.trimStart();
  return start === "" || start.startsWith("{") || start.startsWith(PYTHON_TAG) ||
    PYTHON_TAG.startsWith(start);
}

const PYTHON_TAG = "<|python_tag|>";

const START_MARKERS = [
  "<tool_call>",
  "<function=",
  "[TOOL_CALLS]",
  "<|python_tag|>",
  "<｜tool▁calls▁begin｜>",
  "<|tool▁calls▁begin|>",
];

/** Where held text must begin: at a whole marker, or at a tail that may grow into one. */
function markupStart(text: string): { index: number; whole: boolean } {
  let index = text.length;
  let whole = false;
  for (const marker of START_MARKERS) {
    const at = text.indexOf(marker);
    if (at >= 0 && at < index) {
      index = at;
      whole = true;
    }
  }
  if (whole) return { index, whole };
  for (let tail = Math.min(LONGEST_START, text.length); tail > 0; tail--) {
    const suffix = text.slice(text.length - tail);
    if (START_MARKERS.some((marker) => marker.startsWith(suffix))) {
      return { index: text.length - tail, whole: false };
    }
  }
  return { index, whole };
}
