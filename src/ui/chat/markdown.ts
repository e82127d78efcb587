/**
 * The model's answer as markdown for a terminal: headings, lists, bold,
 * italics, inline code, fenced code (coloured by `highlight.ts` once it has
 * loaded), links with their address, quotes, rules and aligned tables.
 * `marked`'s lexer reads the markdown; its tokens are drawn here as lines of
 * text. Without colour (NO_COLOR, TERM=dumb) emphasis keeps plain-text
 * marks (`**bold**`, `_italic_`, backticks, `#` before a heading), so it
 * still reads as emphasis.
 *
 * Streaming: `MarkdownStream` lexes what has arrived; every top-level block
 * but the last is finished and goes to the scrollback for good, the last one
 * is still growing and is drawn in the redrawn region until the next block
 * starts or the answer ends. Blocks are drawn one at a time either way, so
 * an answer streamed in any chunks renders exactly as it does all at once.
 */
import type { Token, Tokens } from "marked";
import { neutraliseControls } from "../safe_text.ts";
import type { Style } from "./style.ts";
import { textWidth, wrapLine } from "./width.ts";

type Lexer = (source: string) => Token[];

export interface MarkdownOptions {
  columns: number;
  style: Style;
  /** Code with ANSI colours, or undefined when the language is unknown or not loaded yet. */
  highlight?: (code: string, language: string) => string | undefined;
}

let lexer: Lexer | undefined;
let loadingLexer: Promise<Lexer> | undefined;

/** Load `marked` (tens of milliseconds): started early, needed by the first answer. */
export function loadMarkdown(): Promise<Lexer> {
  loadingLexer ??= import("marked").then((marked) => {
    lexer = (source) => marked.Lexer.lex(source, { gfm: true });
    return lexer;
  });
  return loadingLexer;
}

/** The lexer when loaded, else undefined (the caller keeps the text until it is). */
export function markdownLexer(): Lexer | undefined {
  return lexer;
}

/** `source` drawn as terminal lines; every block separated by one blank line. */
export function renderMarkdown(source: string, lex: Lexer, options: MarkdownOptions): string[] {
  const lines: string[] = [];
  for (const token of lex(source)) {
    const block = renderBlock(token, options, options.columns);
    if (!block.length) continue;
    if (lines.length) lines.push("");
    lines.push(...block);
  }
  return lines;
}

/** What arriving text changed: lines finished for good, and the growing block's lines. */
export interface StreamStep {
  done: string[];
  live: string[];
}

export class MarkdownStream {
  #pending = "";
  #blocks = 0;
  #lex: Lexer;
  #options: MarkdownOptions;

  constructor(lex: Lexer, options: MarkdownOptions) {
    this.#lex = lex;
    this.#options = options;
  }

  /** Add text of the answer; blocks that can no longer change come back in `done`. */
  push(text: string): StreamStep {
    this.#pending += text;
    const tokens = this.#lex(this.#pending);
    let last = tokens.length - 1;
    while (last >= 0 && tokens[last].type === "space") last--;
    const done: string[] = [];
    let consumed = 0;
    for (let index = 0; index < last; index++) {
      consumed += tokens[index].raw.length;
      done.push(...this.#block(tokens[index]));
    }
    this.#pending = this.#pending.slice(consumed);
    const live = last >= 0 ? this.#draft(tokens[last]) : [];
    return { done, live };
  }

  /** The answer ended: the rest is finished. */
  finish(): string[] {
    const done: string[] = [];
    for (const token of this.#lex(this.#pending)) done.push(...this.#block(token));
    this.#pending = "";
    return done;
  }

  #block(token: Token): string[] {
    const block = renderBlock(token, this.#options, this.#options.columns);
    if (!block.length) return [];
    const out = this.#blocks > 0 ? ["", ...block] : block;
    this.#blocks++;
    return out;
  }

  #draft(token: Token): string[] {
    const block = renderBlock(token, this.#options, this.#options.columns);
    return this.#blocks > 0 && block.length ? ["", ...block] : block;
  }
}

const safe = (text: string) => neutraliseControls(text);

function wrapAll(text: string, width: number): string[] {
  return text.split("\n").flatMap((line) => wrapLine(line, width));
}

/** Lines of one block, wrapped to `width` cells. */
function renderBlock(token: Token, options: MarkdownOptions, width: number): string[] {
  const { style } = options;
  switch (token.type) {
    case "space":
    case "def":
      return [];
    case "heading": {
      const text = inline((token as Tokens.Heading).tokens, style);
      const depth = (token as Tokens.Heading).depth;
      const styled = !style.color
        ? `${"#".repeat(depth)} ${text}`
        : depth === 1
        ? style.bold(style.underline(text))
        : style.bold(text);
      return wrapAll(styled, width);
    }
    case "paragraph":
      return wrapAll(inline((token as Tokens.Paragraph).tokens, style), width);
    case "text": {
      const text = token as Tokens.Text;
      return wrapAll(text.tokens ? inline(text.tokens, style) : safe(text.text), width);
    }
    case "code":
      return codeBlock(token as Tokens.Code, options);
    case "blockquote": {
      const inner = (token as Tokens.Blockquote).tokens.flatMap((child, index) => [
        ...(index > 0 && child.type !== "space" ? [""] : []),
        ...renderBlock(child, options, Math.max(10, width - 2)),
      ]);
      return inner.map((line) => `${style.dim("│")} ${line}`);
    }
    case "list":
      return list(token as Tokens.List, options, width);
    case "hr":
      return [style.dim("─".repeat(Math.min(width, 40)))];
    case "table":
      return table(token as Tokens.Table, style, width);
    case "html":
      return wrapAll(safe((token as Tokens.HTML).text.replace(/\n$/, "")), width);
    default:
      return wrapAll(safe(token.raw.replace(/\n+$/, "")), width);
  }
}

function codeBlock(token: Tokens.Code, options: MarkdownOptions): string[] {
  const code = safe(token.text);
  const language = (token.lang ?? "").split(/\s/)[0];
  const coloured = language && options.style.color
    ? options.highlight?.(code, language)
    : undefined;
  const fence = options.style.dim("```" + safe(language));
  // Kept as written (not wrapped, no margin) so it copies out of the terminal intact.
  return [fence, ...(coloured ?? code).split("\n"), options.style.dim("```")];
}

function list(token: Tokens.List, options: MarkdownOptions, width: number): string[] {
  const lines: string[] = [];
  const start = typeof token.start === "number" ? token.start : 1;
  token.items.forEach((item, index) => {
    let bullet = token.ordered ? `${start + index}.` : "•";
    if (item.task) bullet += item.checked ? " [x]" : " [ ]";
    const indent = " ".repeat(bullet.length + 1);
    const body: string[] = [];
    for (const child of item.tokens) {
      if (child.type === "space") continue;
      if (body.length && item.loose) body.push("");
      body.push(...renderBlock(child, options, Math.max(10, width - indent.length)));
    }
    body.forEach((line, row) => {
      lines.push(row === 0 ? `${options.style.dim(bullet)} ${line}` : line ? indent + line : "");
    });
    if (!body.length) lines.push(options.style.dim(bullet));
  });
  return lines;
}

/** Cells between two columns, and what the header rule puts there. */
const COLUMN_GAP = " │ ";
const RULE_GAP = "─┼─";
/** Narrowest a column is squeezed to before the table is drawn row by row instead. */
const MIN_COLUMN = 6;

/**
 * A table with its columns aligned: each as wide as its widest cell, the
 * widest ones narrowed until the table fits, cells wrapped inside their
 * column, and the rule under the header kept. Too many columns to fit even
 * narrowed: each row as `header: value` lines.
 */
function table(token: Tokens.Table, style: Style, width: number): string[] {
  const header = token.header.map((cell) => inline(cell.tokens, style));
  const rows = token.rows.map((cells) => cells.map((cell) => inline(cell.tokens, style)));
  const columns = header.length;
  const room = width - COLUMN_GAP.length * (columns - 1);
  const natural = header.map((_, column) =>
    Math.max(1, ...[header, ...rows].map((cells) => cellWidth(cells[column] ?? "")))
  );
  const widths = fitColumns(natural, room);
  if (!widths) return stackedRows(header, rows, style, width);
  const line = (cells: string[], strong: boolean) =>
    tableRow(cells, widths, token.align, strong ? style.bold : (text: string) => text, style);
  return [
    ...line(header, true),
    style.dim(widths.map((cells) => "─".repeat(cells)).join(RULE_GAP)),
    ...rows.flatMap((cells) => line(cells, false)),
  ];
}

function cellWidth(cell: string): number {
  return Math.max(0, ...cell.split("\n").map(textWidth));
}

/** Column widths summing to at most `room`: the widest narrowed first; undefined when none fit. */
function fitColumns(natural: number[], room: number): number[] | undefined {
  const widths = [...natural];
  let total = widths.reduce((sum, cells) => sum + cells, 0);
  while (total > room) {
    const widest = widths.indexOf(Math.max(...widths));
    if (widths[widest] <= MIN_COLUMN) return undefined;
    widths[widest]--;
    total--;
  }
  return widths;
}

/** One table row as terminal lines: every cell wrapped in its column, padded as aligned. */
function tableRow(
  cells: string[],
  widths: number[],
  align: Tokens.Table["align"],
  emphasis: (text: string) => string,
  style: Style,
): string[] {
  const wrapped = widths.map((columnWidth, column) =>
    (cells[column] ?? "").split("\n").flatMap((part) => wrapLine(part, columnWidth))
  );
  const height = Math.max(...wrapped.map((parts) => parts.length));
  const lines: string[] = [];
  for (let row = 0; row < height; row++) {
    const pieces = widths.map((columnWidth, column) => {
      const text = wrapped[column][row] ?? "";
      // A colour left open at a wrap would run into the padding and the next column.
      const closed = style.color && text.includes("\x1b") ? text + "\x1b[0m" : text;
      return pad(emphasis(closed), columnWidth - textWidth(text), align[column]);
    });
    lines.push(pieces.join(style.dim(COLUMN_GAP.trimEnd()) + " ").trimEnd());
  }
  return lines;
}

function pad(text: string, spare: number, align: Tokens.Table["align"][number]): string {
  const fill = Math.max(0, spare);
  if (align === "right") return " ".repeat(fill) + text;
  if (align === "center") {
    const left = Math.floor(fill / 2);
    return " ".repeat(left) + text + " ".repeat(fill - left);
  }
  return text + " ".repeat(fill);
}

/** A table too wide for the terminal: each row as its cells under their headers' names. */
function stackedRows(header: string[], rows: string[][], style: Style, width: number): string[] {
  return rows.flatMap((cells, index) => [
    ...(index > 0 ? [style.dim("─".repeat(Math.min(width, 20)))] : []),
    ...cells.flatMap((cell, column) =>
      wrapAll(`${style.bold(header[column] ?? "")}: ${cell}`, width)
    ),
  ]);
}

/** Inline tokens as one string (may hold newlines from hard breaks). */
function inline(tokens: Token[] | undefined, style: Style): string {
  if (!tokens) return "";
  return tokens.map((token) => inlineOne(token, style)).join("");
}

function inlineOne(token: Token, style: Style): string {
  switch (token.type) {
    case "strong": {
      const text = inline((token as Tokens.Strong).tokens, style);
      return style.color ? style.bold(text) : `**${text}**`;
    }
    case "em": {
      const text = inline((token as Tokens.Em).tokens, style);
      return style.color ? style.italic(text) : `_${text}_`;
    }
    case "del": {
      const text = inline((token as Tokens.Del).tokens, style);
      return style.color ? style.dim(text) : `~~${text}~~`;
    }
    case "codespan": {
      const code = safe((token as Tokens.Codespan).text);
      return style.color ? style.cyan(code) : `\`${code}\``;
    }
    case "br":
      return "\n";
    case "link": {
      const link = token as Tokens.Link;
      const text = inline(link.tokens, style);
      const href = safe(link.href);
      return link.text === link.href || `mailto:${link.text}` === link.href
        ? style.underline(style.blue(href))
        : `${style.underline(text)} ${style.dim(`(${href})`)}`;
    }
    case "image": {
      const image = token as Tokens.Image;
      return style.dim(`[image: ${safe(image.text)}] (${safe(image.href)})`);
    }
    case "text": {
      const text = token as Tokens.Text;
      return text.tokens ? inline(text.tokens, style) : safe(text.text);
    }
    case "escape":
      return safe((token as Tokens.Escape).text);
    default:
      return safe(token.raw);
  }
}
