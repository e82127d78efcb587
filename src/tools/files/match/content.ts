/**
 * What the replacer chain (replacers.ts) and the repairs
 * (repairs.ts) share: a match, the file's text indexed once, the
 * model's old_string split into lines, and the shape of a replacer. Its own module, so neither of the two imports the
 * other for it.
 */
/** A candidate: the half-open character range [start, end) of the file text. */
export interface Match {
  start: number;
  end: number;
}

/** The file's text split once into lines, shared by every replacer. */
export class ContentIndex {
  readonly lines: string[];
  readonly starts: number[];
  #trimmed?: string[];

  constructor(readonly text: string) {
    this.lines = text.split("\n");
    this.starts = new Array(this.lines.length);
    let offset = 0;
    for (let i = 0; i < this.lines.length; i++) {
      this.starts[i] = offset;
      offset += this.lines[i].length + 1;
    }
  }

  get trimmed(): string[] {
    return (this.#trimmed ??= this.lines.map((line) => line.trim()));
  }

  /** 0-based line holding character `offset`. */
  lineOf(offset: number): number {
    let low = 0;
    let high = this.starts.length - 1;
    while (low < high) {
      const middle = (low + high + 1) >> 1;
      if (this.starts[middle] <= offset) low = middle;
      else high = middle - 1;
    }
    return low;
  }

  /** The range covering lines first..last (0-based, inclusive). */
  lineRange(first: number, last: number, withNewline: boolean): Match {
    const end = this.starts[last] + this.lines[last].length;
    const newline = withNewline && last < this.lines.length - 1 ? 1 : 0;
    return { start: this.starts[first], end: end + newline };
  }

  /** 1-based "12-15" (or "12") for a match, as the model reads line numbers. */
  describe(match: Match): string {
    const first = this.lineOf(match.start) + 1;
    const last = this.lineOf(Math.max(match.start, match.end - 1)) + 1;
    return first === last ? `${first}` : `${first}-${last}`;
  }
}

/** `old_string` cut into lines; a final newline is remembered, not kept as a line. */
export interface FindLines {
  lines: string[];
  trimmed: string[];
  endsWithNewline: boolean;
}

export function splitFind(find: string): FindLines {
  const lines = find.split("\n");
  const endsWithNewline = lines.length > 1 && lines[lines.length - 1] === "";
  if (endsWithNewline) lines.pop();
  return { lines, trimmed: lines.map((line) => line.trim()), endsWithNewline };
}

export interface Replacer {
  /** Stable name, reported in metadata ("line-trimmed"). */
  name: string;
  /** How the match was made, told to the model when it was not exact. */
  how: string;
  /** Matches by similarity rather than equality: never used to replace every occurrence. */
  fuzzy: boolean;
  /** Matches whole lines, so indentation can be carried over to `new_string`. */
  lineBased: boolean;
  find(content: ContentIndex, find: string): Match[];
  /** Adjusts `new_string` when this replacer wins (escape-normalised unescapes it too). */
  rewriteNew?(newString: string): string;
  /** What this replacer takes `old_string` to mean, for judging a match's size. */
  interpretFind?(find: string): string;
  /**
   * `new_string` fitted to the text this replacer matched (after any
   * re-indentation), with a note for the model when that changed it.
   */
  fit?(find: string, matched: string, replacement: string): { text: string; note?: string };
}
