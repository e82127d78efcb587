/**
 * How many terminal cells a piece of text takes, and wrapping by cells, not
 * by characters: a CJK character or most emoji take two cells, a combining
 * mark none. `string-width` knows the grapheme and emoji rules; it costs tens
 * of milliseconds to load (its Unicode-property regexes), so it is loaded in
 * the background (`preloadWidth`) and, until it lands, `get-east-asian-width`
 * (a few milliseconds) measures code point by code point. ASCII never needs
 * either. skiff's own colour sequences (SGR, `ESC [ … m`) take no cells.
 */
import { eastAsianWidth } from "get-east-asian-width";

let stringWidth: ((text: string) => number) | undefined;
let loading: Promise<void> | undefined;

/** Start loading the full width rules; resolves when they are in use. */
export function preloadWidth(): Promise<void> {
  loading ??= import("string-width").then((module) => {
    stringWidth = module.default;
  });
  return loading;
}

// deno-lint-ignore no-control-regex -- skiff's own colour sequences take no cells
const SGR = /\x1b\[[0-9;]*m/g;
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;
const ZERO_WIDTH = /[\p{Mn}\p{Me}\p{Cf}\u200b-\u200f\ufe00-\ufe0f]/u;
const EMOJI = /\p{Extended_Pictographic}/u;

function roughWidth(text: string): number {
  let width = 0;
  for (const char of text) {
    const code = char.codePointAt(0)!;
    if (ZERO_WIDTH.test(char)) continue;
    width += EMOJI.test(char) && code > 0x2000 ? 2 : eastAsianWidth(code);
  }
  return width;
}

/** Cells `text` takes on one line (no newlines expected). */
export function textWidth(text: string): number {
  const plain = text.includes("\x1b") ? text.replace(SGR, "") : text;
  if (PRINTABLE_ASCII.test(plain)) return plain.length;
  return stringWidth ? stringWidth(plain) : roughWidth(plain);
}

// Made on first use: building one loads ICU's break rules, tens of milliseconds.
let segmenter: Intl.Segmenter | undefined;

/** Grapheme clusters of plain text. */
export function graphemes(text: string): string[] {
  segmenter ??= new Intl.Segmenter();
  return Array.from(segmenter.segment(text), (part) => part.segment);
}

/** Grapheme clusters of `text`, with skiff's SGR sequences kept as zero-width pieces. */
function pieces(text: string): string[] {
  const out: string[] = [];
  let last = 0;
  for (const match of text.matchAll(SGR)) {
    out.push(...graphemes(text.slice(last, match.index)));
    out.push(match[0]);
    last = match.index + match[0].length;
  }
  out.push(...graphemes(text.slice(last)));
  return out;
}

/**
 * One line cut into rows of at most `columns` cells, breaking after a space
 * where one is near, else inside the word. Never splits a wide character or
 * an emoji sequence across rows. With `keepWords` a word longer than a row
 * (an id, a path, a command) is never cut: it gets a row of its own, which
 * the terminal folds, so it can still be selected and copied whole.
 */
export function wrapLine(line: string, columns: number, keepWords = false): string[] {
  const width = Math.max(1, columns);
  if (textWidth(line) <= width) return [line];
  const rows: string[] = [];
  let row = "";
  let rowWidth = 0;
  let lastSpace = -1; // index in `row` just after the last space
  // With keepWords, after the last run of two spaces: skiff's own lines set
  // items apart so (an approval's choices), and an item is kept whole when
  // the row is at least a third full without it.
  let lastGap = -1;
  for (const piece of pieces(line)) {
    const cells = piece.startsWith("\x1b") ? 0 : textWidth(piece);
    if (rowWidth + cells > width && !(keepWords && piece !== " " && lastSpace <= 0 && row)) {
      const gapFits = keepWords && lastGap > 0 && textWidth(row.slice(0, lastGap)) >= width / 3;
      const at = gapFits ? lastGap : lastSpace;
      if (at > 0 && at < row.length) {
        rows.push(row.slice(0, at).trimEnd());
        row = row.slice(at);
      } else {
        rows.push(row.trimEnd());
        row = "";
      }
      rowWidth = textWidth(row);
      lastSpace = row.lastIndexOf(" ") + 1 || -1;
      lastGap = -1;
      if (piece === " " && row === "") continue;
    }
    row += piece;
    rowWidth += cells;
    if (piece === " ") {
      lastSpace = row.length;
      if (row.endsWith("  ")) lastGap = row.length;
    }
  }
  if (row) rows.push(row);
  return rows;
}

/** skiff's own text, each line wrapped at spaces to `columns` (`wrapLine` with keepWords). */
export function wrapWords(text: string, columns: number): string {
  return text.split("\n").flatMap((line) => wrapLine(line, columns, true)).join("\n");
}

/** `text` cut to `columns` cells, ending in `…` when anything was left out. */
export function truncate(text: string, columns: number): string {
  if (textWidth(text) <= columns) return text;
  let out = "";
  let used = 0;
  for (const piece of pieces(text)) {
    const cells = piece.startsWith("\x1b") ? 0 : textWidth(piece);
    if (used + cells > columns - 1) break;
    out += piece;
    used += cells;
  }
  return out + (text.includes("\x1b") ? "\x1b[0m" : "") + "…";
}
