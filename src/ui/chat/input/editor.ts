/**
 * The input line of the chat: a multi-line buffer with a cursor, history
 * (↑/↓ on the first or last line), Ctrl-R reverse search, and the keys that
 * send, add a line, interrupt or exit. Pure: keys in, an action out; the
 * terminal side draws `view()`.
 *
 * A long paste would fill the screen and push the prompt off it, so it
 * stands in the buffer as one label (`[pasted 300 lines]`) until it is
 * sent, whole, or shown whole with `expandPastes()`; Backspace right after
 * the label takes the paste out.
 */
import type { Key } from "./keys.ts";

export type EditorAction =
  | { kind: "none" }
  | { kind: "submit"; text: string }
  /** Esc, or Ctrl-C with text: stop the running turn, keep the text. */
  | { kind: "interrupt" }
  /** Ctrl-D on an empty input, or Ctrl-C twice on an empty input. */
  | { kind: "exit" }
  /** Ctrl-C on an empty input the first time: say how to exit. */
  | { kind: "exit-hint" }
  | { kind: "complete" };

export interface EditorView {
  /** The buffer's lines (or the search line while searching). */
  lines: string[];
  /** Cursor position in `lines`. */
  row: number;
  column: number;
  searching?: { query: string; match?: string };
}

/** A paste of more lines than this stands in the input as a label. */
const COLLAPSE_LINES = 10;
/** Or of more characters than this (one very long line). */
const COLLAPSE_CHARACTERS = 2000;

export class LineEditor {
  text = "";
  cursor = 0;
  #history: string[];
  /** Position in history while browsing; history.length: the draft. */
  #browse: number;
  #draft = "";
  #search: { query: string; from: number; match?: number } | undefined;
  #armedExit = false;
  /** Collapsed pastes: the label standing in the buffer, and the text it stands for. */
  #pastes = new Map<string, string>();

  constructor(history: string[] = []) {
    this.#history = history;
    this.#browse = history.length;
  }

  /** Remember a sent line (a repeat of the last one is not kept twice). */
  remember(line: string): void {
    if (line.trim() && this.#history.at(-1) !== line) this.#history.push(line);
    this.#browse = this.#history.length;
  }

  set(text: string): void {
    this.text = text;
    this.cursor = text.length;
  }

  insert(text: string): void {
    this.text = this.text.slice(0, this.cursor) + text + this.text.slice(this.cursor);
    this.cursor += text.length;
  }

  /** Whether the buffer holds a paste shown as its label. */
  get hasCollapsedPaste(): boolean {
    return [...this.#pastes.keys()].some((label) => this.text.includes(label));
  }

  /** Every collapsed paste put in whole; false when there was none. */
  expandPastes(): boolean {
    let expanded = false;
    for (const [label, pasted] of this.#pastes) {
      const at = this.text.indexOf(label);
      if (at < 0) continue;
      this.text = this.text.slice(0, at) + pasted + this.text.slice(at + label.length);
      if (this.cursor >= at + label.length) this.cursor += pasted.length - label.length;
      else if (this.cursor > at) this.cursor = at + pasted.length;
      expanded = true;
    }
    this.#pastes.clear();
    return expanded;
  }

  /** The buffer as it is sent: each label replaced by the text it stands for. */
  #whole(text: string): string {
    for (const [label, pasted] of this.#pastes) {
      const at = text.indexOf(label);
      if (at >= 0) text = text.slice(0, at) + pasted + text.slice(at + label.length);
    }
    return text;
  }

  #paste(text: string): void {
    const lines = text.split("\n").length;
    if (lines <= COLLAPSE_LINES && text.length <= COLLAPSE_CHARACTERS) return this.insert(text);
    const size = lines > 1 ? `${lines} lines` : `${text.length} characters`;
    let label = `[pasted ${size}]`;
    // A second paste of the same size, or the label typed by hand: a label of its own.
    for (let n = 2; this.#pastes.has(label) || this.text.includes(label); n++) {
      label = `[pasted ${size} #${n}]`;
    }
    this.#pastes.set(label, text);
    this.insert(label);
  }

  handle(key: Key): EditorAction {
    if (key.kind !== "ctrl-c") this.#armedExit = false;
    if (this.#search) return this.#handleSearch(key);
    switch (key.kind) {
      case "text":
        this.insert(key.text);
        return { kind: "none" };
      case "paste":
        this.#paste(key.text);
        return { kind: "none" };
      case "newline":
        this.insert("\n");
        return { kind: "none" };
      case "enter": {
        // A trailing backslash continues the message on a new line.
        if (this.text.slice(0, this.cursor).endsWith("\\") && this.cursor === this.text.length) {
          this.text = this.text.slice(0, -1);
          this.cursor -= 1;
          this.insert("\n");
          return { kind: "none" };
        }
        const text = this.#whole(this.text);
        if (!text.trim()) return { kind: "none" };
        this.#pastes.clear();
        this.set("");
        this.remember(text);
        this.#draft = "";
        return { kind: "submit", text };
      }
      case "backspace": {
        const before = this.text.slice(0, this.cursor);
        const label = [...this.#pastes.keys()].find((label) => before.endsWith(label));
        if (label) {
          this.text = before.slice(0, -label.length) + this.text.slice(this.cursor);
          this.cursor -= label.length;
          this.#pastes.delete(label);
        } else if (this.cursor > 0) {
          this.text = this.text.slice(0, this.cursor - 1) + this.text.slice(this.cursor);
          this.cursor -= 1;
        }
        return { kind: "none" };
      }
      case "delete":
        this.text = this.text.slice(0, this.cursor) + this.text.slice(this.cursor + 1);
        return { kind: "none" };
      case "left":
        this.cursor = Math.max(0, this.cursor - 1);
        return { kind: "none" };
      case "right":
        this.cursor = Math.min(this.text.length, this.cursor + 1);
        return { kind: "none" };
      case "home":
      case "ctrl-a":
        this.cursor = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
        return { kind: "none" };
      case "end":
      case "ctrl-e": {
        const end = this.text.indexOf("\n", this.cursor);
        this.cursor = end < 0 ? this.text.length : end;
        return { kind: "none" };
      }
      case "ctrl-k": {
        const end = this.text.indexOf("\n", this.cursor);
        this.text = this.text.slice(0, this.cursor) + (end < 0 ? "" : this.text.slice(end));
        return { kind: "none" };
      }
      case "ctrl-u": {
        const start = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
        this.text = this.text.slice(0, start) + this.text.slice(this.cursor);
        this.cursor = start;
        return { kind: "none" };
      }
      case "ctrl-w": {
        const before = this.text.slice(0, this.cursor).replace(/\S+\s*$/, "");
        this.text = before + this.text.slice(this.cursor);
        this.cursor = before.length;
        return { kind: "none" };
      }
      case "up":
        if (this.text.lastIndexOf("\n", this.cursor - 1) >= 0) return this.#moveLine(-1);
        return this.#browseHistory(-1);
      case "down":
        if (this.text.indexOf("\n", this.cursor) >= 0) return this.#moveLine(1);
        return this.#browseHistory(1);
      case "ctrl-r":
        this.#search = { query: "", from: this.#history.length };
        return { kind: "none" };
      case "tab":
        return { kind: "complete" };
      case "escape":
        return { kind: "interrupt" };
      case "ctrl-c":
        if (this.text) {
          return { kind: "interrupt" };
        }
        if (this.#armedExit) return { kind: "exit" };
        this.#armedExit = true;
        return { kind: "exit-hint" };
      case "ctrl-d":
        return this.text ? this.handle({ kind: "delete" }) : { kind: "exit" };
      case "ctrl-o":
      case "ctrl-t":
        // The chat's (expand the last tool call; show the reasoning); nothing to edit.
        return { kind: "none" };
    }
  }

  /** Ctrl-C with text clears it the second time round; kept here for the caller. */
  clear(): void {
    this.set("");
    this.#pastes.clear();
  }

  #moveLine(direction: -1 | 1): EditorAction {
    const start = this.text.lastIndexOf("\n", this.cursor - 1) + 1;
    const column = this.cursor - start;
    if (direction < 0) {
      const previousStart = this.text.lastIndexOf("\n", start - 2) + 1;
      this.cursor = Math.min(previousStart + column, start - 1);
    } else {
      const nextStart = this.text.indexOf("\n", this.cursor) + 1;
      const nextEnd = this.text.indexOf("\n", nextStart);
      this.cursor = Math.min(nextStart + column, nextEnd < 0 ? this.text.length : nextEnd);
    }
    return { kind: "none" };
  }

  #browseHistory(direction: -1 | 1): EditorAction {
    const next = this.#browse + direction;
    if (next < 0 || next > this.#history.length) return { kind: "none" };
    if (this.#browse === this.#history.length) this.#draft = this.text;
    this.#browse = next;
    this.set(next === this.#history.length ? this.#draft : this.#history[next]);
    return { kind: "none" };
  }

  #handleSearch(key: Key): EditorAction {
    const search = this.#search!;
    const find = (from: number) => {
      for (let i = from - 1; i >= 0; i--) {
        if (this.#history[i].includes(search.query)) return i;
      }
      return undefined;
    };
    switch (key.kind) {
      case "text":
      case "paste":
        search.query += key.text;
        search.match = find(search.from);
        return { kind: "none" };
      case "backspace":
        search.query = search.query.slice(0, -1);
        search.match = search.query ? find(search.from) : undefined;
        return { kind: "none" };
      case "ctrl-r":
        // The next older match.
        if (search.match !== undefined) search.match = find(search.match) ?? search.match;
        return { kind: "none" };
      case "escape":
      case "ctrl-c":
        this.#search = undefined;
        return { kind: "none" };
      default: {
        // Any other key takes the match into the buffer and then acts.
        this.#search = undefined;
        if (search.match !== undefined) this.set(this.#history[search.match]);
        return key.kind === "enter" ? this.handle(key) : { kind: "none" };
      }
    }
  }

  view(): EditorView {
    if (this.#search) {
      const match = this.#search.match === undefined
        ? undefined
        : this.#history[this.#search.match];
      const line = `(search) '${this.#search.query}': ${match ?? ""}`;
      return {
        lines: line.split("\n"),
        row: 0,
        column: line.length,
        searching: { query: this.#search.query, match },
      };
    }
    const before = this.text.slice(0, this.cursor).split("\n");
    return {
      lines: this.text.split("\n"),
      row: before.length - 1,
      column: before.at(-1)!.length,
    };
  }
}
