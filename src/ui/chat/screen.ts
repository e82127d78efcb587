/**
 * The terminal, inline: finished output is written once into the terminal's
 * own scrollback (so it can be scrolled, searched and copied after skiff
 * exits), and only a region at the bottom (the growing block of the answer,
 * the todo list, the input, the status line) is erased and drawn again.
 *
 * The region is erased by moving the cursor up to its first row and clearing
 * to the end of the screen, so the screen only needs to know how many rows it
 * drew and on which one it left the cursor. After a resize those rows have
 * been re-wrapped by the terminal at the new width, so the count is worked
 * out again from each row's width before erasing. On a dumb terminal nothing
 * is ever erased: text is only appended.
 */
import type { ChatOutput } from "./types.ts";
import { textWidth, truncate } from "./width.ts";

const encoder = new TextEncoder();

export interface ScreenOptions {
  output: ChatOutput;
  columns: number;
  rows: number;
  /** Cursor movement allowed; false on TERM=dumb. */
  redraw: boolean;
}

/** Where the cursor goes in the region: a row index and a cell column. */
export interface RegionCursor {
  row: number;
  column: number;
}

export class Screen {
  #output: ChatOutput;
  #columns: number;
  #rows: number;
  readonly redraw: boolean;
  /** Widths of the rows drawn now, and the row and column the cursor was left at. */
  #drawn: number[] = [];
  #cursor: RegionCursor = { row: 0, column: 0 };
  #region: string[] = [];
  #regionCursor: RegionCursor | undefined;
  #hidden = false;

  constructor(options: ScreenOptions) {
    this.#output = options.output;
    this.#columns = Math.max(10, options.columns);
    this.#rows = Math.max(3, options.rows);
    this.redraw = options.redraw;
  }

  get columns(): number {
    return this.#columns;
  }

  get rows(): number {
    return this.#rows;
  }

  /** Width rows of the region are cut to: one short of the edge, so no row ever wraps by itself. */
  get regionWidth(): number {
    return this.#columns - 1;
  }

  /**
   * Append finished text to the scrollback, with the region below it: `next`
   * when given (what the region shows now that the text is finished), so a
   * region about to shrink is never drawn at its old height under the text
   * and then cut, which would leave empty rows under the prompt.
   */
  scroll(text: string, next?: { rows: string[]; cursor?: RegionCursor }): void {
    if (!text) return;
    if (next) {
      this.#region = next.rows;
      this.#regionCursor = next.cursor;
    }
    // The input side keeps the terminal in raw mode, where a newline does not return the carriage.
    text = (text.endsWith("\n") ? text : text + "\n").replace(/\r?\n/g, "\r\n");
    if (!this.redraw) {
      // Appended only: each piece on lines of its own, so the user's message and the answer
      // never share a line.
      this.#write(text);
      return;
    }
    this.#write(this.#erase() + text + this.#draw());
  }

  /** Replace the region's rows (already wrapped to `regionWidth`) and where the cursor sits. */
  setRegion(rows: string[], cursor?: RegionCursor): void {
    this.#region = rows;
    this.#regionCursor = cursor;
    if (!this.redraw || this.#hidden) return;
    this.#write(this.#erase() + this.#draw());
  }

  /** The terminal changed size: erase what the old rows became, draw at the new width. */
  resize(columns: number, rows: number): void {
    const erase = this.#hidden || !this.redraw ? "" : this.#eraseAfterResize(columns);
    this.#columns = Math.max(10, columns);
    this.#rows = Math.max(3, rows);
    if (!this.redraw || this.#hidden) return;
    this.#write(erase);
  }

  /** Draw the region again (after a resize, when the caller has re-wrapped it). */
  refresh(): void {
    if (!this.redraw || this.#hidden) return;
    this.#write(this.#erase() + this.#draw());
  }

  /** Erase the region and leave the terminal to someone else until `show()`. */
  hide(): void {
    if (this.#hidden) return;
    this.#hidden = true;
    if (this.redraw) this.#write(this.#erase());
  }

  show(): void {
    if (!this.#hidden) return;
    this.#hidden = false;
    if (this.redraw) this.#write(this.#draw());
  }

  /** Erase the region and leave the cursor at the start of a fresh line. */
  close(): void {
    if (this.redraw && !this.#hidden) this.#write(this.#erase() + "\x1b[?25h");
    this.#hidden = true;
  }

  #write(text: string): void {
    if (!text) return;
    const bytes = encoder.encode(text);
    let written = 0;
    while (written < bytes.length) written += this.#output.writeSync(bytes.subarray(written));
  }

  /** Back to the region's first row, cleared to the end of the screen. */
  #erase(): string {
    if (!this.#drawn.length) return "";
    const up = this.#cursor.row;
    this.#drawn = [];
    this.#cursor = { row: 0, column: 0 };
    return `\x1b[?25l${up > 0 ? `\x1b[${up}A` : ""}\r\x1b[J`;
  }

  #eraseAfterResize(columns: number): string {
    if (!this.#drawn.length) return "";
    const width = Math.max(1, columns);
    // Rows above the cursor, each now taking as many rows as its width needs.
    let up = 0;
    for (let row = 0; row < this.#cursor.row; row++) {
      up += Math.max(1, Math.ceil(this.#drawn[row] / width));
    }
    up += Math.floor(this.#cursor.column / width);
    this.#drawn = [];
    this.#cursor = { row: 0, column: 0 };
    return `\x1b[?25l${up > 0 ? `\x1b[${up}A` : ""}\r\x1b[J`;
  }

  /** The region's rows, then the cursor moved to where the input wants it. */
  #draw(): string {
    const rows = this.#region.map((row) => truncate(row, this.regionWidth));
    if (!rows.length) return "\x1b[?25h";
    this.#drawn = rows.map(textWidth);
    let text = rows.join("\r\n");
    const last = rows.length - 1;
    const target = this.#regionCursor ?? { row: last, column: this.#drawn[last] };
    const row = Math.min(Math.max(0, target.row), last);
    if (last - row > 0) text += `\x1b[${last - row}A`;
    text += "\r";
    if (target.column > 0) text += `\x1b[${target.column}C`;
    this.#cursor = { row, column: target.column };
    return text + (this.#regionCursor ? "\x1b[?25h" : "");
  }
}
