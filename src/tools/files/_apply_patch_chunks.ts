/**
 * Applies the chunks of one `*** Update File` section to a text, in memory.
 * Each chunk's old lines (kept and removed) are located after the previous
 * chunk — or, when not there, at the one place in the file they match — by
 * a ladder of comparisons — exact, then trailing whitespace ignored, then
 * both ends trimmed, then Unicode punctuation and spaces normalised — and
 * kept lines are written back exactly as the file had them, so a loose
 * match never rewrites a line the patch did not change. Added lines take the
 * same consistent indentation shift as the old lines needed, if there is one.
 */
import { ToolError } from "../tool.ts";
import type { PatchChunk } from "./_apply_patch_parser.ts";
import { reindentLines } from "./match/indent.ts";
import { closestRegion } from "./match/match.ts";
import { ContentIndex } from "./match/replacers.ts";
import { plainPunctuation } from "./match/repairs.ts";

/** Typographic dashes, quotes and spaces as their ASCII look-alikes, trimmed. */
export function normalisePunctuation(line: string): string {
  return plainPunctuation(line).trim();
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
  return seekAllLines(file, pattern, from, atEnd, 1)[0] ?? -1;
}

/**
 * Every index ≥ `from` where `pattern` occurs, at the strictest level where it
 * occurs at all (at most `limit` of them), in file order; empty when absent.
 */
function seekAllLines(
  file: LineKeys,
  pattern: string[],
  from: number,
  atEnd: boolean,
  limit = Infinity,
): number[] {
  const total = file.lines.length;
  if (pattern.length === 0) return [atEnd ? total : from];
  for (let level = 0; level < LINE_COMPARISONS.length; level++) {
    const wanted = pattern.map(LINE_COMPARISONS[level].key);
    const keys = file.at(level);
    const matchesAt = (i: number) => wanted.every((line, k) => keys[i + k] === line);
    if (atEnd) {
      const i = total - pattern.length;
      if (i >= from && matchesAt(i)) return [i];
      continue;
    }
    const found: number[] = [];
    for (let i = Math.max(0, from); i + pattern.length <= total && found.length < limit; i++) {
      if (keys[i] === wanted[0] && matchesAt(i)) found.push(i);
    }
    if (found.length) return found;
  }
  return [];
}

function describeChunk(chunk: PatchChunk, index: number): string {
  const first = chunk.lines.find((line) => line.kind !== "add")?.text.trim();
  const shown = first ? `, starting "${first.length > 60 ? first.slice(0, 60) + "…" : first}"` : "";
  return `chunk ${index + 1} (patch line ${chunk.patchLine}${shown})`;
}

/** Where one chunk's old lines go: [start, start + length) of the file's lines. */
interface Placement {
  start: number;
  length: number;
  lines: string[];
  chunk: number;
}

const oldLinesOf = (chunk: PatchChunk) =>
  chunk.lines.filter((line) => line.kind !== "add").map((line) => line.text);

/** Where `chunk` starts when searched from line `from` on (its @@ line first); -1 when absent. */
function startAfter(keys: LineKeys, chunk: PatchChunk, from: number): number {
  const old = oldLinesOf(chunk);
  let after = from;
  if (chunk.anchor) {
    const anchorAt = seekLines(keys, [chunk.anchor], from, false);
    if (anchorAt < 0) return -1;
    after = anchorAt + 1;
  }
  // Pure addition: right after the anchor, else at the end of the file.
  if (old.length === 0) return chunk.anchor && !chunk.endOfFile ? after : keys.lines.length;
  const start = seekLines(keys, old, after, chunk.endOfFile);
  // The @@ line may also be the chunk's first context line.
  if (start < 0 && chunk.anchor) return seekLines(keys, old, after - 1, chunk.endOfFile);
  return start;
}

/** Every start `chunk` could have anywhere in the file (one per @@ line found). */
function startsAnywhere(keys: LineKeys, chunk: PatchChunk): number[] {
  if (!chunk.anchor) return seekAllLines(keys, oldLinesOf(chunk), 0, chunk.endOfFile);
  const anchors = seekAllLines(keys, [chunk.anchor], 0, false);
  const starts = anchors.map((anchorAt) => startAfter(keys, chunk, anchorAt));
  return [...new Set(starts.filter((start) => start >= 0))].sort((a, b) => a - b);
}

/** Two placements change a line in common, or one inserts inside the other's lines. */
function overlaps(a: { start: number; length: number }, b: Placement): boolean {
  if (a.length === 0 && b.length === 0) return false;
  if (a.length === 0) return a.start > b.start && a.start < b.start + b.length;
  if (b.length === 0) return b.start > a.start && b.start < a.start + a.length;
  return a.start < b.start + b.length && b.start < a.start + a.length;
}

const lineSpan = (start: number, length: number) =>
  length <= 1 ? `${start + 1}` : `${start + 1}-${start + length}`;

/**
 * Where chunk `index` goes: the first match after the previous chunk, as a
 * patch is written in file order; failing that, the one place in the whole
 * file it matches, so chunks sent out of order still land — but never a
 * guess between two places, and never on lines another chunk changes.
 */
function placeChunk(
  keys: LineKeys,
  chunk: PatchChunk,
  index: number,
  cursor: number,
  placed: Placement[],
  displayPath: string,
): number {
  const length = oldLinesOf(chunk).length;
  const inOrder = startAfter(keys, chunk, cursor);
  if (inOrder >= 0 && !placed.some((other) => overlaps({ start: inOrder, length }, other))) {
    return inOrder;
  }
  const starts = startsAnywhere(keys, chunk);
  if (starts.length > 1) {
    const where = starts.slice(0, 10).map((start) => lineSpan(start, length)).join(", ");
    throw new ToolError(
      "ambiguous_match",
      `${displayPath}: ${describeChunk(chunk, index)} is not after the chunk before it, and ` +
        `matches ${starts.length} places elsewhere: lines ${where}. No file was changed.`,
      `Put the chunks in file order, or add context lines (or an @@ line) so the chunk matches one place.`,
      { candidates: starts.map((start) => lineSpan(start, length)) },
    );
  }
  if (starts.length === 1) {
    const clash = placed.find((other) => overlaps({ start: starts[0], length }, other));
    if (!clash) return starts[0];
    throw new ToolError(
      "no_match",
      `${displayPath}: ${describeChunk(chunk, index)} matches only lines ${
        lineSpan(starts[0], length)
      }, which overlaps chunk ${clash.chunk + 1}. No file was changed.`,
      "Merge the two chunks into one, or read the file again and rebuild them from its lines.",
    );
  }
  if (chunk.anchor && seekLines(keys, [chunk.anchor], 0, false) < 0) {
    throw new ToolError(
      "no_match",
      `${displayPath}: the context line "@@ ${chunk.anchor}" of ${
        describeChunk(chunk, index)
      } was not found. No file was changed.`,
      `Read ${displayPath} again and copy the @@ line from it, or leave the @@ line empty.`,
    );
  }
  const closest = closestRegion(
    new ContentIndex(keys.lines.join("\n")),
    oldLinesOf(chunk).join("\n"),
  );
  const near = closest
    ? ` The closest text is at line${closest.includes("-") ? "s" : ""} ${closest}.`
    : "";
  throw new ToolError(
    "no_match",
    `${displayPath}: ${describeChunk(chunk, index)} does not match the file` +
      `${chunk.endOfFile ? " at its end" : ""}.${near} No file was changed.`,
    `Read ${displayPath} ${closest ? `around line ${closest.split("-")[0]}` : "again"} ` +
      `and rebuild the chunk from its current lines ` +
      `(context with " ", removed lines with "-").`,
    closest ? { closest } : undefined,
  );
}

/** `text` (LF) with `chunks` applied. Throws ToolError("no_match") naming the chunk that failed. */
export function applyChunks(text: string, chunks: PatchChunk[], displayPath: string): string {
  const finalNewline = text.endsWith("\n");
  const lines = text === "" ? [] : (finalNewline ? text.slice(0, -1) : text).split("\n");
  const keys = new LineKeys(lines);
  const placed: Placement[] = [];
  let cursor = 0;
  for (const [index, chunk] of chunks.entries()) {
    const old = oldLinesOf(chunk);
    const start = placeChunk(keys, chunk, index, cursor, placed, displayPath);
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
    placed.push({ start, length: old.length, lines: replacement, chunk: index });
    // Lines appended at the end say nothing about where the next chunk is.
    const appended = old.length === 0 && start === lines.length;
    if (!appended) cursor = start + old.length;
  }
  // From the bottom up, so earlier starts stay valid; at one start, in patch order.
  const ordered = placed.map((p, i) => ({ p, i })).sort((a, b) =>
    a.p.start - b.p.start || a.i - b.i
  );
  for (const { p } of ordered.reverse()) lines.splice(p.start, p.length, ...p.lines);
  if (lines.length === 0) return "";
  return lines.join("\n") + (finalNewline || text === "" ? "\n" : "");
}
