/**
 * Applies the chunks of one `*** Update File` section to a text, in memory.
 * Each chunk's old lines (kept and removed) are located after the previous
 * chunk by a ladder of comparisons — exact, then trailing whitespace ignored,
 * then both ends trimmed, then Unicode punctuation and spaces normalised —
 * and kept lines are written back exactly as the file had them, so a loose
 * match never rewrites a line the patch did not change. Added lines take the
 * same consistent indentation shift as the old lines needed, if there is one.
 */
import { ToolError } from "./tool.ts";
import type { PatchChunk } from "./apply_patch_parser.ts";
import { reindentLines } from "./edit_indent.ts";
import { closestRegion } from "./edit_match.ts";
import { ContentIndex } from "./edit_replacers.ts";

const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/** Typographic dashes, quotes and spaces as their ASCII look-alikes. */
export function normalisePunctuation(line: string): string {
  return line.replace(DASHES, "-").replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"')
    .replace(ODD_SPACES, " ").trim();
}

/** The comparisons, strictest first. */
export const LINE_COMPARISONS: readonly { name: string; key: (line: string) => string }[] = [
  { name: "exact", key: (line) => line },
  { name: "trailing whitespace ignored", key: (line) => line.trimEnd() },
  { name: "trimmed", key: (line) => line.trim() },
  { name: "Unicode-normalised", key: normalisePunctuation },
];

/** The file's lines under each comparison, computed once per file. */
export class LineKeys {
  #cache = new Map<number, string[]>();
  constructor(readonly lines: string[]) {}

  at(level: number): string[] {
    let keys = this.#cache.get(level);
    if (!keys) {
      keys = this.lines.map(LINE_COMPARISONS[level].key);
      this.#cache.set(level, keys);
    }
    return keys;
  }
}

/**
 * First index ≥ `from` where `pattern` occurs in the file; with `atEnd`, the
 * match must end at the last line. Returns -1 when absent at every level.
 */
export function seekLines(file: LineKeys, pattern: string[], from: number, atEnd: boolean): number {
  const total = file.lines.length;
  if (pattern.length === 0) return atEnd ? total : from;
  for (let level = 0; level < LINE_COMPARISONS.length; level++) {
    const wanted = pattern.map(LINE_COMPARISONS[level].key);
    const keys = file.at(level);
    const matchesAt = (i: number) => wanted.every((line, k) => keys[i + k] === line);
    if (atEnd) {
      const i = total - pattern.length;
      if (i >= from && matchesAt(i)) return i;
      continue;
    }
    for (let i = Math.max(0, from); i + pattern.length <= total; i++) {
      if (keys[i] === wanted[0] && matchesAt(i)) return i;
    }
  }
  return -1;
}

function describeChunk(chunk: PatchChunk, index: number): string {
  const first = chunk.lines.find((line) => line.kind !== "add")?.text.trim();
  const shown = first ? `, starting "${first.length > 60 ? first.slice(0, 60) + "…" : first}"` : "";
  return `chunk ${index + 1} (patch line ${chunk.patchLine}${shown})`;
}

/** `text` (LF) with `chunks` applied. Throws ToolError("no_match") naming the chunk that failed. */
export function applyChunks(text: string, chunks: PatchChunk[], displayPath: string): string {
  const finalNewline = text.endsWith("\n");
  const lines = text === "" ? [] : (finalNewline ? text.slice(0, -1) : text).split("\n");
  const keys = new LineKeys(lines);
  const replacements: { start: number; length: number; lines: string[] }[] = [];
  let cursor = 0;
  for (const [index, chunk] of chunks.entries()) {
    let from = cursor;
    if (chunk.anchor) {
      const anchorAt = seekLines(keys, [chunk.anchor], cursor, false);
      if (anchorAt < 0) {
        throw new ToolError(
          "no_match",
          `${displayPath}: the context line "@@ ${chunk.anchor}" of ${
            describeChunk(chunk, index)
          } ` +
            `was not found${cursor > 0 ? ` after line ${cursor}` : ""}. No file was changed.`,
          `Read ${displayPath} again and copy the @@ line from it, or leave the @@ line empty.`,
        );
      }
      from = anchorAt + 1;
    }
    const old = chunk.lines.filter((line) => line.kind !== "add").map((line) => line.text);
    let start: number;
    if (old.length === 0) {
      // Pure addition: right after the anchor, else at the end of the file.
      start = chunk.anchor && !chunk.endOfFile ? from : lines.length;
    } else {
      start = seekLines(keys, old, from, chunk.endOfFile);
      // The @@ line may also be the chunk's first context line.
      if (start < 0 && chunk.anchor) start = seekLines(keys, old, from - 1, chunk.endOfFile);
      if (start < 0) {
        const closest = closestRegion(new ContentIndex(lines.join("\n")), old.join("\n"));
        const near = closest
          ? ` The closest text is at line${closest.includes("-") ? "s" : ""} ${closest}.`
          : "";
        throw new ToolError(
          "no_match",
          `${displayPath}: ${describeChunk(chunk, index)} does not match the file` +
            `${
              chunk.endOfFile ? " at its end" : cursor > 0 ? ` after line ${cursor}` : ""
            }.${near} No file was changed.`,
          `Read ${displayPath} ${closest ? `around line ${closest.split("-")[0]}` : "again"} ` +
            `and rebuild the chunk from its current lines ` +
            `(context with " ", removed lines with "-"), in file order.`,
          closest ? { closest } : undefined,
        );
      }
    }
    // Kept lines come from the file; removed lines go; added lines come from the patch,
    // moved by the indentation shift the loose match found (a chunk written four spaces
    // short is added four spaces deeper, as its old lines were found).
    const added = chunk.lines.filter((line) => line.kind === "add").map((line) => line.text);
    const moved = old.length
      ? reindentLines(old, lines.slice(start, start + old.length), added)
      : added;
    const replacement: string[] = [];
    let offset = start;
    let addIndex = 0;
    for (const line of chunk.lines) {
      if (line.kind === "add") replacement.push(moved[addIndex++]);
      else if (line.kind === "keep") replacement.push(lines[offset++]);
      else offset++;
    }
    replacements.push({ start, length: old.length, lines: replacement });
    cursor = start + old.length;
  }
  for (const { start, length, lines: replacement } of replacements.reverse()) {
    lines.splice(start, length, ...replacement);
  }
  if (lines.length === 0) return "";
  return lines.join("\n") + (finalNewline || text === "" ? "\n" : "");
}
