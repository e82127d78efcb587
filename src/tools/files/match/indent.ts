/**
 * Carrying the file's indentation over to `new_string` after a match that
 * ignored indentation. A model that dropped four spaces from old_string
 * usually dropped them from new_string too, and one that typed spaces into a
 * tab-indented file typed spaces in both: writing new_string as sent would
 * put code at the wrong depth or mix tabs and spaces.
 */

function leading(line: string): string {
  return line.slice(0, line.length - line.trimStart().length);
}

/** A rewrite of a line's leading whitespace (tabs ↔ spaces), applied before any shift. */
type IndentStyle = (indent: string) => string;

const keepStyle: IndentStyle = (indent) => indent;
const STYLES: IndentStyle[] = [
  keepStyle,
  ...[4, 2, 8].map((width): IndentStyle => (indent) => indent.replaceAll(" ".repeat(width), "\t")),
  ...[4, 2, 8].map((width): IndentStyle => (indent) => indent.replaceAll("\t", " ".repeat(width))),
];

interface Shift {
  mode: "add" | "remove";
  prefix: string;
}

/** The one prefix added to (or removed from) every model line to get the file's, if any. */
function commonShift(pairs: [string, string][], style: IndentStyle): Shift | null {
  let shift: Shift | null = null;
  for (const [model, file] of pairs) {
    if (model.trim() === "" || file.trim() === "") continue;
    const m = style(leading(model));
    const f = leading(file);
    let next: Shift;
    if (f.endsWith(m)) next = { mode: "add", prefix: f.slice(0, f.length - m.length) };
    else if (m.endsWith(f)) next = { mode: "remove", prefix: m.slice(0, m.length - f.length) };
    else return null;
    if (shift === null) shift = next;
    else if (shift.prefix !== next.prefix || (next.prefix !== "" && shift.mode !== next.mode)) {
      return null;
    }
  }
  return shift;
}

function applyShift(line: string, style: IndentStyle, shift: Shift): string | null {
  if (line.trim() === "") return line;
  const indent = style(leading(line));
  const body = line.trimStart();
  if (shift.mode === "add") return shift.prefix + indent + body;
  return indent.startsWith(shift.prefix) ? indent.slice(shift.prefix.length) + body : null;
}

/** `lines` moved by the one style and shift that maps every pair, or null when none does. */
function shifted(pairs: [string, string][], lines: string[]): string[] | null {
  for (const style of STYLES) {
    const shift = commonShift(pairs, style);
    if (shift === null) continue;
    if (style === keepStyle && shift.prefix === "") return lines;
    const moved = lines.map((line) => applyShift(line, style, shift));
    return moved.some((line) => line === null) ? null : moved as string[];
  }
  return null;
}

/**
 * `replacement` re-indented the way `matchedLines` differ from `findLines`:
 * the same indentation style (tabs or spaces) and the same shift. A first
 * line sent with no indentation (copied from where its text starts) is
 * judged apart from the rest, which decide the shift; the first line of
 * `replacement` then takes the file's indentation. When the lines differ in
 * no single consistent way, `replacement` is returned as is.
 */
export function reindent(findLines: string[], matchedLines: string[], replacement: string): string {
  const pairs = pairsOf(findLines, matchedLines);
  const lines = replacement.split("\n");
  const whole = shifted(pairs, lines);
  if (whole) return whole.join("\n");
  const [first, ...rest] = lines;
  if (pairs.length < 2 || leading(findLines[0]) !== "" || leading(first) !== "") return replacement;
  const tail = shifted(pairs.slice(1), rest);
  if (!tail) return replacement;
  return [leading(matchedLines[0]) + first, ...tail].join("\n");
}

/**
 * `lines` moved by the one consistent shift (and tabs/spaces style) that
 * turns `findLines` into `matchedLines`; unchanged when there is none. For
 * apply_patch's added lines, which line up with no particular old line, so
 * no line is judged apart.
 */
export function reindentLines(
  findLines: string[],
  matchedLines: string[],
  lines: string[],
): string[] {
  return shifted(pairsOf(findLines, matchedLines), lines) ?? lines;
}

function pairsOf(findLines: string[], matchedLines: string[]): [string, string][] {
  return findLines.length === matchedLines.length
    ? findLines.map((line, i): [string, string] => [line, matchedLines[i]])
    : [
      [findLines[0], matchedLines[0]],
      [findLines[findLines.length - 1], matchedLines[matchedLines.length - 1]],
    ];
}
