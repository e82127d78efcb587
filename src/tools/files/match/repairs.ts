/**
 * Repairs of `old_string` mistakes that are safe to undo: read's line-number
 * gutter copied along with the text, typographic quotes, dashes or spaces
 * typed where the file has plain ones (or the reverse), and whitespace or
 * blank lines at its ends that the file does not have there. Each repair is
 * a replacer in the chain (edit_replacers.ts), so a repaired old_string
 * that matches more than one place fails as ambiguous like any other.
 *
 * What the edit does not change keeps the file's own characters: the part
 * of new_string that old_string shares at its start and end is taken from
 * the file, so a repair never rewrites the file's quotes or blank lines.
 */
import type { ContentIndex, Match, Replacer } from "./content.ts";

const DASHES = /[\u2010\u2011\u2012\u2013\u2014\u2015\u2212]/g;
const SINGLE_QUOTES = /[\u2018\u2019\u201A\u201B]/g;
const DOUBLE_QUOTES = /[\u201C\u201D\u201E\u201F]/g;
const ODD_SPACES = /[\u00A0\u2000-\u200A\u202F\u205F\u3000]/g;

/**
 * Typographic dashes, quotes and spaces as their ASCII look-alikes, one
 * character for one, so an offset in the result is an offset in `text`.
 */
export function plainPunctuation(text: string): string {
  return text.replace(DASHES, "-").replace(SINGLE_QUOTES, "'").replace(DOUBLE_QUOTES, '"')
    .replace(ODD_SPACES, " ");
}

function occurrences(text: string, needle: string): Match[] {
  const found: Match[] = [];
  if (needle === "") return found;
  for (let at = text.indexOf(needle); at !== -1; at = text.indexOf(needle, at + 1)) {
    found.push({ start: at, end: at + needle.length });
  }
  return found;
}

/** Lengths of the longest shared start and end of `a` and `b`, not overlapping. */
function sharedEnds(a: string, b: string): { head: number; tail: number } {
  const limit = Math.min(a.length, b.length);
  let head = 0;
  while (head < limit && a[head] === b[head]) head++;
  let tail = 0;
  while (tail < limit - head && a[a.length - 1 - tail] === b[b.length - 1 - tail]) tail++;
  return { head, tail };
}

/**
 * `replacement` fitted to `matched`, which is `find` with some characters
 * swapped one for one: the start and end new_string shares with old_string
 * come from the file, and in the changed middle each character the model
 * consistently typed differently from the file is written the file's way.
 */
export function fitPunctuation(find: string, matched: string, replacement: string): string {
  const seen = new Map<string, string | null>();
  for (let i = 0; i < find.length; i++) {
    const wanted = find[i] === matched[i] ? find[i] : matched[i];
    const earlier = seen.get(find[i]);
    seen.set(find[i], earlier === undefined || earlier === wanted ? wanted : null);
  }
  const { head, tail } = sharedEnds(find, replacement);
  const middle = [...replacement.slice(head, replacement.length - tail)].map((char) => {
    const fileWay = seen.get(char);
    return fileWay ? fileWay : char;
  }).join("");
  return matched.slice(0, head) + middle + matched.slice(matched.length - tail);
}

/** Typographic quotes, dashes or odd spaces where the file has plain ones, or the reverse. */
export const punctuationReplacer: Replacer = {
  name: "punctuation-normalised",
  how: "reading typographic quotes, dashes and spaces as their plain look-alikes " +
    "(the file's own kept where the text did not change)",
  fuzzy: false,
  lineBased: false,
  find(content, raw) {
    const plain = plainPunctuation(raw);
    const file = plainPunctuation(content.text);
    if (plain === raw && file === content.text) return [];
    return occurrences(file, plain);
  },
  fit: (find, matched, replacement) => ({ text: fitPunctuation(find, matched, replacement) }),
};

const GUTTER = /^ *(\d+)(?:\t(.*))?$/s;

/**
 * `text` without read's line-number gutter (`    12\t`), or null unless every
 * line has one and the numbers count up by one: the mark of a copy from
 * read, which a file's own content (a table of numbers) hardly ever has.
 */
export function stripGutter(text: string): string | null {
  const lines = text.split("\n");
  const finalNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (finalNewline) lines.pop();
  let expected: number | null = null;
  let tabs = 0;
  const stripped: string[] = [];
  for (const line of lines) {
    const match = GUTTER.exec(line);
    if (!match) return null;
    const number = Number(match[1]);
    if (expected !== null && number !== expected) return null;
    expected = number + 1;
    if (match[2] !== undefined) tabs++;
    stripped.push(match[2] ?? "");
  }
  const result = stripped.join("\n") + (finalNewline ? "\n" : "");
  return tabs > 0 && result.trim() !== "" ? result : null;
}

/** new_string's lines with any gutter removed (copied lines carry it, typed ones do not). */
function stripGutterFromNew(text: string): string {
  return stripGutter(text) ?? text.split("\n").map((line) => line.replace(/^ *\d+\t/, ""))
    .join("\n");
}

/**
 * old_string copied with read's line numbers. The rest must then match as
 * written, or with typographic punctuation read as plain (reported too).
 */
export const gutterReplacer: Replacer = {
  name: "line-number-gutter",
  how: "after removing read's line-number prefixes from old_string",
  fuzzy: false,
  lineBased: false,
  find(content: ContentIndex, raw: string): Match[] {
    const stripped = stripGutter(raw);
    if (stripped === null) return [];
    const exact = occurrences(content.text, stripped);
    return exact.length ? exact : punctuationReplacer.find(content, stripped);
  },
  rewriteNew: stripGutterFromNew,
  interpretFind: (raw) => stripGutter(raw) ?? raw,
  fit(find, matched, replacement) {
    const stripped = stripGutter(find) ?? find;
    if (matched === stripped) return { text: replacement };
    return {
      text: fitPunctuation(stripped, matched, replacement),
      note: "typographic quotes, dashes and spaces read as their plain look-alikes",
    };
  },
};

const leadingSpace = (text: string) => text.slice(0, text.length - text.trimStart().length);
const trailingSpace = (text: string) => text.slice(text.trimEnd().length);

/**
 * For a replacer that matched old_string without its leading and trailing
 * whitespace: the same whitespace at new_string's ends is not written
 * either, so the file keeps its own blank lines and indentation around the
 * change instead of gaining (or losing) the model's.
 */
export function fitBoundary(
  find: string,
  _matched: string,
  replacement: string,
): { text: string; note?: string } {
  const lead = sharedEnds(leadingSpace(find), leadingSpace(replacement)).head;
  let text = replacement.slice(lead);
  const trailFind = trailingSpace(find);
  const trailNew = trailingSpace(text);
  let trail = 0;
  while (
    trail < Math.min(trailFind.length, trailNew.length) &&
    trailFind[trailFind.length - 1 - trail] === trailNew[trailNew.length - 1 - trail]
  ) trail++;
  text = text.slice(0, text.length - trail);
  if (text === replacement) return { text };
  return {
    text,
    note: "the file's own blank lines and indentation around it kept",
  };
}
