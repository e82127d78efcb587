/**
 * The replacer chain: the ways `edit` looks for the model's `old_string` in a
 * file, strictest first. Each replacer returns every place it would match;
 * the caller (edit_match.ts) takes the first replacer with exactly one and
 * refuses to guess when a replacer finds several.
 *
 * Everything here works on the LF form of the file and scales with the file
 * times the size of `old_string`: no step compares every line with every
 * other line.
 */
import { blockSimilarity, similarEnough } from "./similarity.ts";
import { fitBoundary, gutterReplacer, punctuationReplacer } from "./repairs.ts";
import { type FindLines, type Match, type Replacer, splitFind } from "./content.ts";

export { ContentIndex, type FindLines, type Match, type Replacer, splitFind } from "./content.ts";

/** The anchor-similarity floor for block-anchor and context-aware matching. */
export const SIMILARITY_THRESHOLD = 0.65;

function allOccurrences(text: string, needle: string): Match[] {
  const found: Match[] = [];
  if (needle === "") return found;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    found.push({ start: at, end: at + needle.length });
  }
  return found;
}

const hasText = (find: FindLines) => find.trimmed.some((line) => line !== "");

export const exactReplacer: Replacer = {
  name: "exact",
  how: "exactly",
  fuzzy: false,
  lineBased: false,
  find: (content, find) => allOccurrences(content.text, find),
};

/** Every line equal once leading and trailing whitespace is ignored. */
export const lineTrimmedReplacer: Replacer = {
  name: "line-trimmed",
  how: "ignoring leading and trailing whitespace on each line",
  fuzzy: false,
  lineBased: true,
  find(content, raw) {
    const find = splitFind(raw);
    const n = find.lines.length;
    const found: Match[] = [];
    if (!hasText(find)) return found;
    const trimmed = content.trimmed;
    for (let i = 0; i + n <= trimmed.length; i++) {
      let k = 0;
      while (k < n && trimmed[i + k] === find.trimmed[k]) k++;
      if (k === n) found.push(content.lineRange(i, i + n - 1, find.endsWithNewline));
    }
    return found;
  },
};

/**
 * First and last lines as anchors (trimmed, exact), at least three lines, a
 * span near the length of `old_string`, and middle lines alike enough by
 * Levenshtein similarity. Each first anchor yields at most one candidate:
 * its best-scoring last anchor.
 */
export const blockAnchorReplacer: Replacer = {
  name: "block-anchor",
  how: "by its first and last lines, with similar lines between",
  fuzzy: true,
  lineBased: true,
  find(content, raw) {
    const find = splitFind(raw);
    const n = find.lines.length;
    const found: Match[] = [];
    if (n < 3) return found;
    const first = find.trimmed[0];
    const last = find.trimmed[n - 1];
    if (first === "" || last === "") return found;
    const slack = Math.max(2, Math.floor(n / 2));
    const minSpan = Math.max(3, n - slack);
    const maxSpan = n + slack;
    const middle = find.trimmed.slice(1, -1);
    const trimmed = content.trimmed;
    for (let i = 0; i < trimmed.length; i++) {
      if (trimmed[i] !== first) continue;
      let best = -1;
      let bestScore = -1;
      const lastPossible = Math.min(trimmed.length - 1, i + maxSpan - 1);
      for (let j = i + minSpan - 1; j <= lastPossible; j++) {
        if (trimmed[j] !== last) continue;
        const score = blockSimilarity(trimmed.slice(i + 1, j), middle);
        if (score > bestScore) [best, bestScore] = [j, score];
      }
      if (best >= 0 && bestScore >= SIMILARITY_THRESHOLD) {
        found.push(content.lineRange(i, best, find.endsWithNewline));
      }
    }
    return found;
  },
};

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&");
}

/**
 * Runs of whitespace count as one: "a  (b)" finds "a (b)", and a line break
 * in `old_string` finds a line break with any indentation around it.
 */
export const whitespaceNormalizedReplacer: Replacer = {
  name: "whitespace-normalised",
  how: "ignoring differences in runs of whitespace",
  fuzzy: false,
  lineBased: false,
  find(content, raw) {
    const core = raw.trim();
    if (core === "" || !/\s/.test(core)) return [];
    const tokens = core.split(/(\s+)/);
    const pattern = tokens.map((token, index) => {
      if (index % 2 === 0) return escapeRegExp(token);
      const breaks = token.split("\n").length - 1;
      return breaks === 0 ? "[ \\t]+" : "[ \\t]*" + "\\n[ \\t]*".repeat(breaks);
    }).join("");
    const found: Match[] = [];
    for (const hit of content.text.matchAll(new RegExp(pattern, "g"))) {
      found.push({ start: hit.index, end: hit.index + hit[0].length });
    }
    return found;
  },
  fit: fitBoundary,
};

function leadingWhitespace(line: string): string {
  return line.slice(0, line.length - line.trimStart().length);
}

function dedent(lines: string[]): string[] {
  let common = Infinity;
  for (const line of lines) {
    if (line.trim() !== "") common = Math.min(common, leadingWhitespace(line).length);
  }
  if (common === Infinity || common === 0) return lines.map((l) => (l.trim() === "" ? "" : l));
  return lines.map((line) => (line.trim() === "" ? "" : line.slice(common)));
}

/** The same block shifted left or right as a whole: relative indentation must agree. */
export const indentationFlexibleReplacer: Replacer = {
  name: "indentation-flexible",
  how: "with the whole block at a different indentation",
  fuzzy: false,
  lineBased: true,
  find(content, raw) {
    const find = splitFind(raw);
    const n = find.lines.length;
    const found: Match[] = [];
    if (!hasText(find)) return found;
    const target = dedent(find.lines).join("\n");
    const starts = find.lines.map((line) => line.trimStart());
    for (let i = 0; i + n <= content.lines.length; i++) {
      let k = 0; // cheap filter first: the text after indentation must agree
      while (k < n && content.lines[i + k].trimStart() === starts[k]) k++;
      if (k < n) continue;
      if (dedent(content.lines.slice(i, i + n)).join("\n") === target) {
        found.push(content.lineRange(i, i + n - 1, find.endsWithNewline));
      }
    }
    return found;
  },
};

const ESCAPES: Record<string, string> = {
  n: "\n",
  t: "\t",
  r: "\r",
  '"': '"',
  "'": "'",
  "`": "`",
  "\\": "\\",
  "$": "$",
};

/** Undo one level of escaping a model sometimes adds: `\n`, `\t`, `\"`, `\\`. */
export function unescapeModelText(text: string): string {
  return text.replace(/\\([ntr"'`\\$])/g, (_, char: string) => ESCAPES[char]);
}

/**
 * `old_string` arrived escaped once too often. `new_string` is unescaped the
 * same way when this wins: the file holds no such escapes (the exact replacer
 * would have matched), so writing them would corrupt it.
 */
export const escapeNormalizedReplacer: Replacer = {
  name: "escape-normalised",
  how: 'after undoing escape sequences (\\n, \\t, \\") in old_string',
  fuzzy: false,
  lineBased: false,
  find(content, raw) {
    const plain = unescapeModelText(raw);
    return plain === raw ? [] : allOccurrences(content.text, plain);
  },
  rewriteNew: unescapeModelText,
  interpretFind: unescapeModelText,
};

/** `old_string` with stray whitespace or blank lines at its ends. */
export const trimmedBoundaryReplacer: Replacer = {
  name: "trimmed-boundary",
  how: "ignoring whitespace at the start and end of old_string",
  fuzzy: false,
  lineBased: false,
  find(content, raw) {
    const core = raw.trim();
    return core === raw || core === "" ? [] : allOccurrences(content.text, core);
  },
  fit: fitBoundary,
};

/**
 * A block of exactly as many lines where at least half the lines, one of
 * the two ends among them, are equal once trimmed, and every other line is
 * similar. Catches a wrong first or last line, which block-anchor cannot.
 */
export const contextAwareReplacer: Replacer = {
  name: "context-aware",
  how: "by most of its lines, with the others similar",
  fuzzy: true,
  lineBased: true,
  find(content, raw) {
    const find = splitFind(raw);
    const n = find.lines.length;
    const found: Match[] = [];
    if (n < 3 || !hasText(find)) return found;
    const needed = Math.ceil(n / 2);
    const trimmed = content.trimmed;
    for (let i = 0; i + n <= trimmed.length; i++) {
      if (trimmed[i] !== find.trimmed[0] && trimmed[i + n - 1] !== find.trimmed[n - 1]) continue;
      let equal = 0;
      for (let k = 0; k < n; k++) if (trimmed[i + k] === find.trimmed[k]) equal++;
      if (equal < needed) continue;
      let alike = true;
      for (let k = 0; k < n && alike; k++) {
        const a = trimmed[i + k];
        const b = find.trimmed[k];
        if (a === b) continue;
        alike = a !== "" && b !== "" && similarEnough(a, b, SIMILARITY_THRESHOLD);
      }
      if (alike) found.push(content.lineRange(i, i + n - 1, find.endsWithNewline));
    }
    return found;
  },
};

/** The chain, strictest first. Order is part of the contract (see docs/tools.md). */
export const REPLACERS: readonly Replacer[] = [
  exactReplacer,
  gutterReplacer,
  lineTrimmedReplacer,
  punctuationReplacer,
  blockAnchorReplacer,
  whitespaceNormalizedReplacer,
  indentationFlexibleReplacer,
  escapeNormalizedReplacer,
  trimmedBoundaryReplacer,
  contextAwareReplacer,
];
