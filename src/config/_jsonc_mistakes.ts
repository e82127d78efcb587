/**
 * What the user is told when a config file does not parse: jsonc-parser's
 * first error, named by what the reader expected at that place, at the
 * place where the text first goes wrong.
 */

/** What the reader expects next, which names the mistake when something else comes. */
export type Expecting =
  | "value"
  | "property"
  | "colon"
  | "comma in object"
  | "comma in list"
  | "end";

/** An object or list being read. */
export interface Container {
  value: Record<string, unknown> | unknown[];
  /** The key whose value comes next or came last (objects). */
  key?: string;
  /** Offset of each key seen, to catch a key given twice. */
  keyAt?: Map<string, number>;
}

/** jsonc-parser's error codes that need their own message (its `ParseErrorCode` is type-only). */
const ERROR = {
  invalidSymbol: 1,
  invalidNumberFormat: 2,
  closeBraceExpected: 7,
  closeBracketExpected: 8,
  unexpectedEndOfComment: 11,
  unexpectedEndOfString: 12,
  invalidUnicode: 14,
  invalidEscapeCharacter: 15,
  invalidCharacter: 16,
} as const;

/** A mistake as the user is told of it: why, and where. */
export interface Mistake {
  reason: string;
  offset: number;
}

/**
 * The user-facing reason for jsonc-parser's first error `code` at `offset`:
 * where a token may not stand at all, that is the mistake, whatever is wrong
 * inside the token; a number or word cut short names the character after
 * its valid start.
 */
export function describeError(
  text: string,
  code: number,
  offset: number,
  length: number,
  expecting: Expecting,
  top: Container | undefined,
  closed: { container: Container; expecting: Expecting } | undefined,
): Mistake {
  const tokenAllowed = expecting === "value" || expecting === "property";
  if (code === ERROR.unexpectedEndOfComment) {
    return { reason: "unterminated block comment (missing '*/')", offset };
  }
  if (code === ERROR.unexpectedEndOfString && tokenAllowed) {
    return { reason: "unterminated string (a closing '\"' is missing on this line)", offset };
  }
  if (code === ERROR.invalidEscapeCharacter && tokenAllowed) {
    const literal = text.slice(offset, offset + length);
    const badEscape = /\\[^"\\/bfnrtu]/.exec(literal);
    if (badEscape) {
      return {
        reason: `invalid escape "${badEscape[0]}" in ${shortened(literal)}: a backslash in a ` +
          `string must be doubled (write "C:\\\\Users", or use forward slashes)`,
        offset: offset + badEscape.index,
      };
    }
  }
  if (
    tokenAllowed &&
    (code === ERROR.invalidEscapeCharacter || code === ERROR.invalidUnicode ||
      code === ERROR.invalidCharacter)
  ) {
    return { reason: "invalid escape or control character in string", offset };
  }
  if (expecting === "value") {
    // A valid number or word followed by more: the mistake is what follows.
    const start = VALID_START.exec(text.slice(offset))?.[0];
    if (start && start.length < length) {
      const after = top ? (Array.isArray(top.value) ? "comma in list" : "comma in object") : "end";
      return unexpected(text, after, top?.key, offset + start.length);
    }
    if (text[offset] === "-" || code === ERROR.invalidNumberFormat) {
      return { reason: `expected a number but found ${describeAt(text, offset)}`, offset };
    }
    if (code === ERROR.invalidSymbol && text[offset] === "'") {
      return { reason: "strings must use double quotes", offset };
    }
    if (!top && offset >= text.length && !closed) {
      return { reason: "the file has no value (expected an object)", offset };
    }
  }
  // A missing '}' or ']' at the end is reported once its container has closed.
  if (
    offset >= text.length && closed &&
    (code === ERROR.closeBraceExpected || code === ERROR.closeBracketExpected)
  ) {
    return unexpected(text, closed.expecting, closed.container.key, offset);
  }
  return unexpected(text, expecting, top?.key, offset);
}

/** A number's or a literal word's valid beginning. */
const VALID_START = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)/;

/** Something other than what was `expected` stands at `offset`. */
function unexpected(
  text: string,
  expected: Expecting,
  key: string | undefined,
  offset: number,
): Mistake {
  const found = describeAt(text, offset);
  const reasons: Record<Expecting, string> = {
    value: `expected a value but found ${found}`,
    property: `expected a property name in double quotes but found ${found}`,
    colon: `expected ':' after "${key}" but found ${found}`,
    "comma in object": `expected ',' or '}' after the value of "${key}" but found ${found}`,
    "comma in list": `expected ',' or ']' in a list but found ${found}`,
    end: `unexpected ${found} after the end of the value`,
  };
  return { reason: reasons[expected], offset };
}

/** The character at `offset` as quoted in a message. */
function describeAt(text: string, offset: number): string {
  if (offset >= text.length) return "the end of the file";
  const char = text[offset];
  return char.trim() === "" ? JSON.stringify(char) : `'${char}'`;
}

/** A string literal as quoted in a message: long ones are cut. */
function shortened(literal: string): string {
  return literal.length > 60 ? `${literal.slice(0, 56)}..."` : literal;
}

/** The 1-based line of `offset`. */
export function lineOf(text: string, offset: number): number {
  let line = 1;
  for (let i = 0; i < offset; i++) if (text[i] === "\n") line++;
  return line;
}
