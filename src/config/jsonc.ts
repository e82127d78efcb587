/**
 * A small reader for JSON with comments, the format of every skiff config
 * file. It accepts `//` and `/* *\/` comments and trailing commas, and leaves
 * strings alone (a URL's `//` is text, not a comment). A syntax error carries
 * the line and column, so the user can go straight to the mistake.
 */

/** A syntax error at a 1-based line and column. */
export class JsoncSyntaxError extends Error {
  constructor(
    readonly reason: string,
    readonly line: number,
    readonly column: number,
    readonly offset: number,
  ) {
    super(`line ${line}, column ${column}: ${reason}`);
    this.name = "JsoncSyntaxError";
  }
}

/** A string literal as quoted in a message: long ones are cut. */
function shortened(literal: string): string {
  return literal.length > 60 ? `${literal.slice(0, 56)}..."` : literal;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: [string, unknown][] = [["true", true], ["false", false], ["null", null]];

/** Parse JSONC text into a value. Throws `JsoncSyntaxError`. */
export function parseJsonc(text: string): unknown {
  return new Reader(text).document();
}

class Reader {
  #at = 0;
  constructor(private readonly text: string) {
    if (text.charCodeAt(0) === 0xfeff) this.#at = 1; // a BOM is not content
  }

  document(): unknown {
    this.#skipBlank();
    if (this.#at >= this.text.length) this.#fail("the file has no value (expected an object)");
    const value = this.#value();
    this.#skipBlank();
    if (this.#at < this.text.length) {
      this.#fail(`unexpected ${this.#describeHere()} after the end of the value`);
    }
    return value;
  }

  #value(): unknown {
    const char = this.text[this.#at];
    if (char === "{") return this.#object();
    if (char === "[") return this.#array();
    if (char === '"') return this.#string();
    if (char === "-" || (char >= "0" && char <= "9")) return this.#number();
    for (const [word, value] of LITERALS) {
      if (this.text.startsWith(word, this.#at)) {
        this.#at += word.length;
        return value;
      }
    }
    if (char === "'") this.#fail("strings must use double quotes");
    return this.#fail(`expected a value but found ${this.#describeHere()}`);
  }

  #object(): Record<string, unknown> {
    const result: Record<string, unknown> = {};
    const firstAt = new Map<string, number>(); // key → offset, to catch a key given twice
    this.#at++; // {
    for (;;) {
      this.#skipBlank();
      if (this.text[this.#at] === "}") {
        this.#at++;
        return result;
      }
      if (this.text[this.#at] !== '"') {
        this.#fail(`expected a property name in double quotes but found ${this.#describeHere()}`);
      }
      const keyAt = this.#at;
      const key = this.#string();
      const earlier = firstAt.get(key);
      if (earlier !== undefined) {
        this.#fail(
          `"${key}" appears twice in this object (first on line ${this.#lineOf(earlier)}); ` +
            "keep one, since the second would silently replace the first",
          keyAt,
        );
      }
      firstAt.set(key, keyAt);
      this.#skipBlank();
      if (this.text[this.#at] !== ":") {
        this.#fail(`expected ':' after "${key}" but found ${this.#describeHere()}`);
      }
      this.#at++;
      this.#skipBlank();
      // defineProperty, so a key named __proto__ stays a plain key.
      Object.defineProperty(result, key, {
        value: this.#value(),
        enumerable: true,
        writable: true,
        configurable: true,
      });
      this.#skipBlank();
      const next = this.text[this.#at];
      if (next === ",") this.#at++;
      else if (next !== "}") {
        this.#fail(
          `expected ',' or '}' after the value of "${key}" but found ${this.#describeHere()}`,
        );
      }
    }
  }

  #array(): unknown[] {
    const result: unknown[] = [];
    this.#at++; // [
    for (;;) {
      this.#skipBlank();
      if (this.text[this.#at] === "]") {
        this.#at++;
        return result;
      }
      result.push(this.#value());
      this.#skipBlank();
      const next = this.text[this.#at];
      if (next === ",") this.#at++;
      else if (next !== "]") {
        this.#fail(`expected ',' or ']' in a list but found ${this.#describeHere()}`);
      }
    }
  }

  #string(): string {
    const start = this.#at;
    this.#at++; // opening quote
    for (;;) {
      const char = this.text[this.#at];
      if (char === undefined || char === "\n" || char === "\r") {
        this.#fail("unterminated string (a closing '\"' is missing on this line)", start);
      }
      if (char === "\\") this.#at += 2;
      else if (char === '"') break;
      else this.#at++;
    }
    this.#at++; // closing quote
    const literal = this.text.slice(start, this.#at);
    try {
      return JSON.parse(literal);
    } catch {
      const badEscape = /\\[^"\\/bfnrtu]/.exec(literal);
      if (badEscape) {
        return this.#fail(
          `invalid escape "${badEscape[0]}" in ${
            shortened(literal)
          }: a backslash in a string must be ` +
            `doubled (write "C:\\\\Users", or use forward slashes)`,
          start + badEscape.index,
        );
      }
      return this.#fail("invalid escape or control character in string", start);
    }
  }

  #number(): number {
    NUMBER.lastIndex = this.#at;
    const match = NUMBER.exec(this.text);
    if (!match) this.#fail(`expected a number but found ${this.#describeHere()}`);
    const value = Number(match![0]);
    if (!Number.isFinite(value)) this.#fail(`the number ${match![0]} is too large`);
    this.#at += match![0].length;
    return value;
  }

  /** Skip whitespace and comments, which count as whitespace. */
  #skipBlank(): void {
    const text = this.text;
    while (this.#at < text.length) {
      const char = text[this.#at];
      if (char === " " || char === "\t" || char === "\n" || char === "\r") {
        this.#at++;
      } else if (char === "/" && text[this.#at + 1] === "/") {
        const end = text.indexOf("\n", this.#at);
        this.#at = end === -1 ? text.length : end + 1;
      } else if (char === "/" && text[this.#at + 1] === "*") {
        const end = text.indexOf("*/", this.#at + 2);
        if (end === -1) this.#fail("unterminated block comment (missing '*/')");
        this.#at = end + 2;
      } else {
        return;
      }
    }
  }

  #describeHere(): string {
    if (this.#at >= this.text.length) return "the end of the file";
    const char = this.text[this.#at];
    return char.trim() === "" ? JSON.stringify(char) : `'${char}'`;
  }

  #lineOf(offset: number): number {
    let line = 1;
    for (let i = 0; i < offset; i++) if (this.text[i] === "\n") line++;
    return line;
  }

  #fail(reason: string, offset = this.#at): never {
    let line = 1;
    let lineStart = 0;
    for (let i = 0; i < offset && i < this.text.length; i++) {
      if (this.text[i] === "\n") {
        line++;
        lineStart = i + 1;
      }
    }
    throw new JsoncSyntaxError(reason, line, offset - lineStart + 1, offset);
  }
}
