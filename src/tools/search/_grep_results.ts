/**
 * What grep's two engines (ripgrep and the TypeScript fallback) hand back,
 * and the one place that turns it into the model's text: files in path
 * order, at most 100 matching lines, context lines around them. Both engines
 * feed the same collector, which is why their output is identical.
 */

export const GREP_MATCH_LIMIT = 100;
export const MAX_CONTEXT_LINES = 10;
/** Longer lines are cut; a minified file should not fill the context. */
const MAX_LINE_CHARS = 500;

export interface LineHit {
  /** 1-based line number. */
  line: number;
  text: string;
  /** False for a context line. */
  match: boolean;
}

export interface FileHits {
  /** Path from the search root with forward slashes; "" when the root is the file. */
  relative: string;
  /** In line order, each line once. */
  lines: LineHit[];
}

export interface GrepSummary {
  files: FileHits[];
  totalMatches: number;
  totalFiles: number;
}

/**
 * Keeps the files that can still appear in the first `limit` matches in path
 * order, and counts everything, so memory stays bounded however common the
 * pattern is.
 */
export class GrepCollector {
  #files: FileHits[] = [];
  #held = 0;
  totalMatches = 0;
  totalFiles = 0;

  constructor(readonly limit = GREP_MATCH_LIMIT) {}

  add(file: FileHits): void {
    const matches = file.lines.reduce((sum, hit) => sum + (hit.match ? 1 : 0), 0);
    if (!matches) return;
    this.totalMatches += matches;
    this.totalFiles += 1;
    this.#files.push(file);
    this.#held += matches;
    if (this.#held > this.limit * 20 && this.#files.length > 1) this.#prune();
  }

  #prune(): void {
    sortByPath(this.#files);
    let held = 0;
    let keep = 0;
    while (keep < this.#files.length && held < this.limit) {
      held += countMatches(this.#files[keep++]);
    }
    this.#files.length = keep;
    this.#held = held;
  }

  summary(): GrepSummary {
    sortByPath(this.#files);
    return {
      files: this.#files,
      totalMatches: this.totalMatches,
      totalFiles: this.totalFiles,
    };
  }
}

function countMatches(file: FileHits): number {
  let count = 0;
  for (const hit of file.lines) if (hit.match) count++;
  return count;
}

function sortByPath(files: FileHits[]): void {
  files.sort((a, b) => (a.relative < b.relative ? -1 : a.relative > b.relative ? 1 : 0));
}

/**
 * Merges match lines with `context` lines around them, the way ripgrep's
 * `-C` does: a line within reach of a match is shown once, as a match if it
 * is one.
 */
export function withContext(lines: string[], matchIndexes: number[], context: number): LineHit[] {
  if (!context) {
    return matchIndexes.map((index) => ({ line: index + 1, text: lines[index], match: true }));
  }
  const hits: LineHit[] = [];
  const isMatch = new Set(matchIndexes);
  let next = 0;
  for (const index of matchIndexes) {
    const from = Math.max(next, index - context);
    const to = Math.min(lines.length - 1, index + context);
    for (let at = from; at <= to; at++) {
      hits.push({ line: at + 1, text: lines[at], match: isMatch.has(at) });
    }
    next = Math.max(next, to + 1);
  }
  return hits;
}

/** Formats a summary; `display` turns a root-relative path into what the model sees. */
export function formatGrep(
  summary: GrepSummary,
  context: number,
  display: (relative: string) => string,
  limit = GREP_MATCH_LIMIT,
  /** Where the pattern first matches in a line (-1: nowhere), to show that part of a long line. */
  locate: (line: string) => number = () => -1,
): { output: string; shownMatches: number } {
  const blocks: string[] = [];
  let shown = 0;
  for (const file of summary.files) {
    if (shown >= limit) break;
    const name = display(file.relative);
    const out: string[] = [];
    let lastIncludedMatch = -Infinity;
    let previous = -1;
    let cut = false;
    for (const hit of file.lines) {
      if (hit.match) {
        if (shown >= limit) cut = true;
        else {
          shown++;
          lastIncludedMatch = hit.line;
        }
      }
      if (cut && (hit.match || hit.line > lastIncludedMatch + context)) break;
      if (context && previous !== -1 && hit.line > previous + 1) out.push("--");
      out.push(
        `${name}${hit.match ? ":" : "-"}${hit.line}${hit.match ? ":" : "-"} ${
          clamp(hit.text, hit.match ? locate : undefined)
        }`,
      );
      previous = hit.line;
    }
    blocks.push(out.join("\n"));
  }
  let output = blocks.join("\n\n");
  if (summary.totalMatches > shown) {
    output += `\n\n[Showing the first ${shown} of ${summary.totalMatches} matching lines ` +
      `(${summary.totalFiles} files, in path order). Narrow the pattern, or use path or include.]`;
  }
  return { output, shownMatches: shown };
}

/**
 * A long line cut to MAX_LINE_CHARS. In a minified file the match may sit far
 * past the start, so a matching line shows the part around its first match.
 */
function clamp(text: string, locate?: (line: string) => number): string {
  const line = text.endsWith("\r") ? text.slice(0, -1) : text;
  if (line.length <= MAX_LINE_CHARS) return line;
  const at = locate ? locate(line) : -1;
  const start = at > MAX_LINE_CHARS - 100 ? Math.min(at - 100, line.length - MAX_LINE_CHARS) : 0;
  if (start === 0) return `${line.slice(0, MAX_LINE_CHARS)}… [line cut]`;
  const end = start + MAX_LINE_CHARS;
  const after = end < line.length ? "…" : "";
  return `…${line.slice(start, end)}${after} [line cut: characters ${
    start + 1
  }-${end} of ${line.length}]`;
}
