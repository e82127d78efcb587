/**
 * One edit applied to a text: run the replacer chain, refuse to guess, and
 * produce the new text. Pure (no I/O), so the tool, the declare-time preview
 * and the property test all run exactly the same code.
 */
import { ToolError } from "../../tool.ts";
import { reindent } from "./indent.ts";
import { ContentIndex, type Match, type Replacer, REPLACERS, splitFind } from "./replacers.ts";
import { similarity } from "./similarity.ts";
import { countLines, toLf } from "../text_lines.ts";

export interface EditRequest {
  old_string: string;
  new_string: string;
  replace_all?: boolean;
}

export interface EditOutcome {
  text: string;
  /** Name of the replacer that matched ("exact", "block-anchor", …). */
  replacer: string;
  /** How it matched, in words, when not exact; empty for an exact match. */
  how: string;
  occurrences: number;
  /** new_string's indentation was shifted to fit the matched lines. */
  reindented: boolean;
  /** 1-based line of the first change. */
  line: number;
}

/** A match this much bigger than old_string is refused: it is not what the model meant. */
export function isOversized(matched: string, find: string): boolean {
  const findLines = countLines(find);
  const matchLines = countLines(matched);
  const lineLimit = Math.max(findLines * 1.5, findLines + 3);
  const charLimit = Math.max(find.length * 2, find.length + 200);
  return matchLines > lineLimit || matched.length > charLimit;
}

/** Keep the earliest of any overlapping matches (replace_all). */
function nonOverlapping(matches: Match[]): Match[] {
  const sorted = [...matches].sort((a, b) => a.start - b.start);
  const kept: Match[] = [];
  for (const match of sorted) {
    if (kept.length === 0 || match.start >= kept[kept.length - 1].end) kept.push(match);
  }
  return kept;
}

/** Repeats of one place (several matches on one line) as one entry: "62 (2 matches)". */
function samePlaceCounted(places: string[]): string[] {
  const counts = new Map<string, number>();
  for (const place of places) counts.set(place, (counts.get(place) ?? 0) + 1);
  return [...counts].map(([place, n]) => n === 1 ? place : `${place} (${n} matches)`);
}

/** The lines most like old_string, for a no_match hint; null when nothing is close. */
export function closestRegion(content: ContentIndex, find: string): string | null {
  const { trimmed: wanted } = splitFind(find);
  const n = wanted.length;
  const lines = content.trimmed;
  // Each equal line votes for where old_string would start if it were there;
  // the start with most votes wins. Linear in the file (times repeats in old_string).
  const positions = new Map<string, number[]>();
  wanted.forEach((line, k) => {
    if (line !== "") positions.set(line, [...(positions.get(line) ?? []), k]);
  });
  const votes = new Map<number, number>();
  let bestScore = 0;
  let bestStart = -1;
  for (let i = 0; i < lines.length; i++) {
    for (const k of positions.get(lines[i]) ?? []) {
      const start = Math.max(0, i - k);
      const score = (votes.get(start) ?? 0) + 1;
      votes.set(start, score);
      if (score > bestScore || (score === bestScore && start < bestStart)) {
        [bestScore, bestStart] = [score, start];
      }
    }
  }
  if (bestStart >= 0) {
    return content.describe(
      content.lineRange(bestStart, Math.min(lines.length - 1, bestStart + n - 1), false),
    );
  }
  // No line is equal: look for the line most like old_string's first line,
  // comparing only lines of a similar length so the scan stays cheap.
  const probe = wanted.find((line) => line !== "");
  if (!probe) return null;
  let bestLine = -1;
  let bestSimilarity = 0.5;
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i];
    if (line.length < probe.length / 2 || line.length > probe.length * 2) continue;
    const value = similarity(line, probe);
    if (value > bestSimilarity) [bestSimilarity, bestLine] = [value, i];
  }
  return bestLine >= 0 ? `${bestLine + 1}` : null;
}

function replaceRanges(
  content: ContentIndex,
  matches: Match[],
  replacer: Replacer,
  find: string,
  replacement: string,
): { text: string; reindented: boolean; notes: string[] } {
  let text = content.text;
  let reindented = false;
  const notes = new Set<string>();
  const findLines = splitFind(find).lines;
  // From the back, so earlier offsets stay valid.
  for (const match of [...matches].sort((a, b) => b.start - a.start)) {
    let piece = replacement;
    const matchedText = text.slice(match.start, match.end);
    if (replacer.lineBased) {
      piece = reindent(findLines, splitFind(matchedText).lines, replacement);
      reindented ||= piece !== replacement;
    }
    if (replacer.fit) {
      const fitted = replacer.fit(find, matchedText, piece);
      piece = fitted.text;
      if (fitted.note) notes.add(fitted.note);
    }
    text = text.slice(0, match.start) + piece + text.slice(match.end);
  }
  return { text, reindented, notes: [...notes] };
}

/** Apply one edit to `text` (LF form). Throws ToolError for every refusal. */
export function applyEdit(text: string, request: EditRequest, displayPath: string): EditOutcome {
  const find = toLf(request.old_string);
  const replacementRaw = toLf(request.new_string);
  if (find === replacementRaw) {
    throw new ToolError(
      "no_op_edit",
      "old_string and new_string are identical, so the edit would change nothing.",
      "Put the text you want in new_string, or skip this edit.",
    );
  }
  if (find === "") {
    throw new ToolError(
      "bad_input",
      `old_string is empty, but ${displayPath} already has content.`,
      "Give old_string as text copied from the file, or use write to replace the whole file.",
    );
  }
  const content = new ContentIndex(text);
  const replaceAll = request.replace_all === true;
  let oversized = 0;
  for (const replacer of REPLACERS) {
    // Similarity matches are one careful guess at a time, never a mass change.
    if (replaceAll && replacer.fuzzy) continue;
    const all = replacer.find(content, find);
    const meant = replacer.interpretFind ? replacer.interpretFind(find) : find;
    const matches = all.filter((m) => !isOversized(text.slice(m.start, m.end), meant));
    oversized += all.length - matches.length;
    if (matches.length === 0) continue;
    const how = replacer.name === "exact" ? "" : replacer.how;
    if (matches.length > 1 && !replaceAll) {
      const places = samePlaceCounted(matches.map((m) => content.describe(m)));
      const shown = places.slice(0, 20).join(", ");
      const more = places.length > 20 ? ` and ${places.length - 20} more` : "";
      throw new ToolError(
        "ambiguous_match",
        `old_string matches ${matches.length} places in ${displayPath}${how ? ` (${how})` : ""}: ` +
          `lines ${shown}${more}.`,
        "Add neighbouring lines to old_string so it matches exactly one place, " +
          "or set replace_all to change every occurrence.",
        { candidates: matches.map((m) => content.describe(m)), replacer: replacer.name },
      );
    }
    const chosen = replaceAll ? nonOverlapping(matches) : matches;
    const replacement = replacer.rewriteNew ? replacer.rewriteNew(replacementRaw) : replacementRaw;
    const result = replaceRanges(content, chosen, replacer, find, replacement);
    if (result.text === text) {
      throw new ToolError(
        "no_op_edit",
        `The matched text in ${displayPath} already reads as new_string; nothing would change.`,
        "Read the file again to check whether this change was already made.",
      );
    }
    return {
      text: result.text,
      replacer: replacer.name,
      how: [how, ...result.notes].filter((part) => part !== "").join("; "),
      occurrences: chosen.length,
      reindented: result.reindented,
      line: content.lineOf(chosen[0].start) + 1,
    };
  }
  const nonBlank = find.split("\n").filter((line) => line.trim() !== "");
  if (nonBlank.length > 0 && nonBlank.every((line) => /^\s*\d+\t/.test(line))) {
    throw new ToolError(
      "no_match",
      `old_string was not found in ${displayPath}: its lines start with read's line numbers, ` +
        "and without them the text is not in the file either.",
      `Read ${displayPath} again and copy old_string without the line-number prefix ` +
        "(the number and the tab before the text).",
    );
  }
  if (/… \[line cut: \d+ more characters\]/.test(find)) {
    throw new ToolError(
      "no_match",
      `old_string was not found in ${displayPath}: it holds read's note for a cut line ("… [line cut: …]"), which is not in the file.`,
      "Use a shorter old_string from the part of the line that read showed, or see the whole line with bash first.",
    );
  }
  const closest = closestRegion(content, find);
  const where = closest
    ? ` The closest text is at line${closest.includes("-") ? "s" : ""} ${closest}.`
    : "";
  const big = oversized
    ? ` ${oversized} candidate match${
      oversized === 1 ? " was" : "es were"
    } refused as much larger than old_string.`
    : "";
  throw new ToolError(
    "no_match",
    `old_string was not found in ${displayPath}.${where}${big}`,
    closest
      ? `Read ${displayPath} around line ${
        closest.split("-")[0]
      } and copy old_string exactly from it.`
      : `Read ${displayPath} again and copy old_string exactly from the current content.`,
    closest ? { closest } : undefined,
  );
}
