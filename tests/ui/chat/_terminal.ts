/**
 * A small terminal for the chat tests: it obeys the few sequences the chat
 * renderer uses (cursor up/forward, clear to the end of the screen, SGR,
 * show/hide cursor) and keeps every row ever written, so a test reads the
 * scrollback and the bottom region as a person would see them. Any other
 * escape sequence fails the test: the renderer must never send one.
 */

export class FakeTerminal {
  lines: string[][] = [[]];
  row = 0;
  column = 0;
  raw = "";
  #decoder = new TextDecoder();

  constructor(public columns = 80) {}

  writeSync(data: Uint8Array): number {
    const text = this.#decoder.decode(data);
    this.raw += text;
    this.#feed(text);
    return data.length;
  }

  /** What is on the rows, trailing spaces trimmed, trailing empty rows dropped. */
  text(): string {
    const rows = this.lines.map((cells) => cells.join("").replace(/\s+$/, ""));
    while (rows.length && rows.at(-1) === "") rows.pop();
    return rows.join("\n");
  }

  #feed(text: string): void {
    const segmenter = new Intl.Segmenter();
    let index = 0;
    while (index < text.length) {
      const rest = text.slice(index);
      // deno-lint-ignore no-control-regex -- the sequences the renderer is allowed
      const sequence = rest.match(/^\x1b\[(\??)([0-9;]*)([A-Za-z])/);
      if (rest[0] === "\x1b") {
        if (!sequence) throw new Error(`unexpected escape: ${JSON.stringify(rest.slice(0, 12))}`);
        this.#control(sequence[1], sequence[2], sequence[3]);
        index += sequence[0].length;
        continue;
      }
      const char = [...segmenter.segment(rest.slice(0, 8))][0].segment;
      index += char.length;
      if (char === "\r") this.column = 0;
      else if (char === "\n") this.#down();
      else if (char === "\r\n") {
        this.column = 0;
        this.#down();
      } else this.#put(char);
    }
  }

  #control(private_: string, parameter: string, command: string): void {
    const count = Number(parameter || "1");
    if (private_ === "?" && parameter === "25" && (command === "l" || command === "h")) return;
    if (private_) throw new Error(`unexpected sequence ?${parameter}${command}`);
    switch (command) {
      case "m":
        return;
      case "A":
        this.row = Math.max(0, this.row - count);
        return;
      case "C":
        this.column = Math.min(this.columns - 1, this.column + count);
        return;
      case "J":
        this.lines[this.row] = this.lines[this.row].slice(0, this.column);
        this.lines.length = this.row + 1;
        return;
      default:
        throw new Error(`unexpected sequence ${parameter}${command}`);
    }
  }

  #down(): void {
    this.row++;
    while (this.lines.length <= this.row) this.lines.push([]);
  }

  #put(char: string): void {
    const wide =
      /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\uff00-\uff60\u{1f300}-\u{1faff}]/u
        .test(char);
    const width = wide ? 2 : 1;
    if (this.column + width > this.columns) {
      this.column = 0;
      this.#down();
    }
    const cells = this.lines[this.row];
    while (cells.length < this.column) cells.push(" ");
    cells[this.column] = char;
    if (wide) cells[this.column + 1] = "";
    this.column += width;
  }
}

// deno-lint-ignore no-control-regex -- removing colour to compare text
export const stripAnsi = (text: string) => text.replace(/\x1b\[[0-9;?]*[A-Za-z]/g, "");
