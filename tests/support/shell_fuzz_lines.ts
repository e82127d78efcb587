/**
 * Shell lines for the differential fuzzer (tests/permission/shell_fuzz_test.ts,
 * `deno task fuzz`), drawn from bash's grammar: lists and control
 * operators, pipelines, compound commands, every `${ }` operator, quoting of
 * each kind, substitutions, arithmetic, redirections, here-documents, line
 * continuations with LF and CR LF, and bytes that are blanks to one reader
 * and not to another. The visible commands are ones a narrow rule allows
 * (`git status`, `echo`, `cat`, `npm test`); every other command is a
 * logging stand-in `h0`…`h9`, hidden somewhere in the line. A line is a pure
 * function of (seed, index): the same pair gives the same line anywhere.
 */
import { seededRandom } from "./seeded_random.ts";

/** The stand-in programs a line hides; none is ever allowed by a rule. */
export const HIDDEN_PROGRAMS = Array.from({ length: 10 }, (_, index) => `h${index}`);
/** The programs a line runs in plain sight: each is allowed by some narrow rule. */
export const VISIBLE_PROGRAMS = ["git", "echo", "cat", "npm"];

/** The seed of case `index` of a run seeded `seed`: each case is reproducible on its own. */
function caseSeed(seed: number, index: number): number {
  return Math.imul(seed ^ 0x9e3779b9, 0x85ebca6b) ^ Math.imul(index + 1, 0xc2b2ae35);
}

const OPERATORS = [
  ":-",
  "-",
  ":=",
  "=",
  ":?",
  "?",
  ":+",
  "+",
  "#",
  "##",
  "%",
  "%%",
  "/",
  "//",
  "/#",
  "/%",
  "^",
  "^^",
  ",",
  ",,",
  ":",
  "@Q",
  "@E",
  "@P",
  "@A",
  "@a",
  "@U",
  "@u",
  "@L",
  "@K",
];
/** Variables the run defines (see shell_fuzz.ts): unset, set, an array, a trap for arithmetic. */
const NAMES = ["x", "y", "HOME", "arr", "z", "1", "@", "*", "#", "?", "_"];
const LITERALS = [
  "a",
  "b1",
  "-x",
  "--short",
  ".",
  "/tmp",
  "%",
  "=",
  ":",
  "~",
  "*",
  "?",
  "[a]",
  "{a,b}",
  "#",
  "x#y",
  "@",
  "!",
  "-",
  "a=b",
  "]",
  "}",
  "{",
  ",",
];
/** Blanks to one reader and word characters to another, and other odd bytes. */
const ODD = [
  "\r",
  "\v",
  "\f",
  "\t",
  "\x01",
  "\x1b",
  "\x7f",
  "\u00a0",
  "\u0085",
  "\u2028",
  "\ufeff",
  "\u200b",
  "\ue00d",
];
const CONTINUATIONS = ["\\\n", "\\\r\n"];
const SEPARATORS = [" ; ", " && ", " || ", " & ", "\n", "\r\n", " | ", ";", " |& ", "\n\n"];
/** Weighted by repetition: builtins that take a variable name are asked about more often. */
const VISIBLE = [
  "git status",
  "git status",
  "echo",
  "echo",
  "cat",
  "git status",
  "git status --short",
  "echo",
  "echo -n",
  "cat",
  "npm test",
  "printf -v",
  "test -v",
  "read -r",
];
const DELIMITERS = ["EOF", "'EOF'", '"EOF"', "\\EOF", 'E"O"F', "fi", "}", ")", "EOF\r"];

class LineWriter {
  /** Here-document bodies waiting for the end of the current line. */
  #pending: string[] = [];

  constructor(readonly next: () => number) {}

  pick<T>(items: readonly T[]): T {
    return items[Math.floor(this.next() * items.length)];
  }

  chance(probability: number): boolean {
    return this.next() < probability;
  }

  line(): string {
    let text = this.list(2);
    if (this.chance(0.2)) text += this.pick(["\n", "\r\n", " ", ";", " #", " # $(h8)"]);
    return this.flush(text, true);
  }

  /** Appends the here-document bodies after the line ends (or now, at the end of the text). */
  flush(text: string, end: boolean): string {
    if (!this.#pending.length) return text;
    const bodies = this.#pending.join("");
    this.#pending = [];
    return end ? `${text}\n${bodies}` : text + bodies;
  }

  list(depth: number): string {
    let text = this.pipeline(depth);
    const more = Math.floor(this.next() * 3);
    for (let i = 0; i < more; i++) {
      const separator = this.pick(SEPARATORS);
      text += separator;
      if (separator.includes("\n")) text = this.flush(text, false);
      text += this.pipeline(depth);
    }
    return text;
  }

  pipeline(depth: number): string {
    const bang = this.chance(0.05) ? "! " : "";
    const command = this.command(depth);
    return this.chance(0.1) ? `${bang}${command} | ${this.command(depth)}` : bang + command;
  }

  command(depth: number): string {
    if (depth > 0 && this.chance(0.2)) return this.compound(depth - 1);
    return this.simple(depth);
  }

  simple(depth: number): string {
    const parts: string[] = [];
    if (this.chance(0.05)) parts.push(`${this.pick(["A", "x", "y"])}=${this.word(depth)}`);
    parts.push(this.chance(0.03) ? this.hidden(depth) : this.pick(VISIBLE));
    const words = Math.floor(this.next() * 4);
    for (let i = 0; i < words; i++) parts.push(this.word(depth));
    if (this.chance(0.3)) parts.push(this.redirect(depth));
    return parts.join(this.chance(0.05) ? this.pick([" \\\n", " \\\r\n", "\t", "  "]) : " ");
  }

  compound(depth: number): string {
    const list = () => this.list(depth);
    switch (Math.floor(this.next() * 11)) {
      case 0:
        return `{ ${list()}; }`;
      case 1:
        return `( ${list()} )`;
      case 2:
        return `if ${list()}; then ${list()}; else ${list()}; fi`;
      case 3:
        return `for v in ${this.word(depth)} ${this.word(depth)}; do ${list()}; done`;
      case 4:
        return `case ${this.word(depth)} in ${this.word(depth)}) ${list()};; *) ${list()};; esac`;
      case 5:
        return `[[ ${this.word(depth)} ${this.pick(["==", "=~", "!=", "-eq", "<"])} ${
          this.word(depth)
        } ]]`;
      case 6:
        return `(( ${this.arithmetic(depth)} ))`;
      case 7:
        return `while false; do ${list()}; done`;
      case 8:
        return `time ${list()}`;
      case 9:
        return `f() { ${list()}; }`;
      default:
        return `${this.pick(["[", "test"])} ${this.word(depth)} = ${this.word(depth)} ]`;
    }
  }

  /** A command the rules must see: a stand-in, perhaps behind a wrapper or a nested shell. */
  hidden(depth: number): string {
    const name = this.pick(HIDDEN_PROGRAMS);
    // Quoted and escaped spellings of the same name.
    const program = this.pick([
      name,
      name,
      `\\${name}`,
      `h\\${name[1]}`,
      `"${name}"`,
      `'h'${name[1]}`,
    ]);
    const args = this.chance(0.3) ? ` ${this.pick(LITERALS)}` : "";
    switch (Math.floor(this.next() * 8)) {
      case 0:
        return `sh -c '${program}${args}'`;
      case 1:
        return `eval ${program}`;
      case 2:
        return depth > 0 ? `echo ${this.substitution(depth - 1)}; ${program}` : program;
      default:
        return program + args;
    }
  }

  substitution(depth: number): string {
    const inner = this.chance(0.15) && depth > 0 ? this.list(depth - 1) : this.hidden(depth);
    switch (Math.floor(this.next() * 6)) {
      case 0:
        return `\`${inner}\``;
      case 1:
        return `<(${inner})`;
      case 2:
        return `>(${inner})`;
      case 3:
        return `$( ${inner} )`;
      default:
        return `$(${inner})`;
    }
  }

  expansion(depth: number): string {
    const name = this.pick(NAMES);
    const roll = this.next();
    if (roll < 0.1) return `\${#${name}}`;
    if (roll < 0.15) return `\${!${name}${this.pick(["", "*", "@"])}}`;
    if (roll < 0.22) return `\${arr[${this.arithmetic(depth)}]}`;
    const operator = this.pick(OPERATORS);
    if (operator.startsWith("@")) return `\${${name}${operator}}`;
    if (operator === ":") return `\${${name}:${this.arithmetic(depth)}}`;
    let operand = this.word(depth);
    if (operator.startsWith("/") && this.chance(0.5)) operand += `/${this.word(depth)}`;
    return `\${${name}${operator}${operand}}`;
  }

  arithmetic(depth: number): string {
    const operand = () =>
      this.pick([
        "1",
        "2",
        "0",
        "1",
        "x",
        "z",
        "y+1",
        "arr[0]",
        "$x",
        depth > 0 ? this.substitution(depth - 1) : "2",
      ]);
    return `${operand()} ${this.pick(["+", "-", "*", "<", "==", ","])} ${operand()}`;
  }

  /** One shell word: up to three parts side by side. */
  word(depth: number): string {
    const count = 1 + Math.floor(this.next() * 3);
    let text = "";
    for (let i = 0; i < count; i++) text += this.part(depth);
    return text;
  }

  part(depth: number): string {
    const deeper = Math.max(depth - 1, 0);
    switch (Math.floor(this.next() * 16)) {
      case 0:
        return `'${this.plain(depth)}'`;
      case 1:
        return `"${this.quoted(depth)}"`;
      case 2:
        return `$'${this.plain(depth).replace(/'/g, "\\'")}'`;
      case 3:
        return `$"${this.quoted(depth)}"`;
      case 4:
      case 5:
        return this.expansion(deeper);
      case 6:
        return depth > 0 ? this.substitution(deeper) : this.pick(LITERALS);
      case 7:
        return `$((${this.arithmetic(deeper)}))`;
      case 8:
        return `\\${this.pick([...LITERALS, "`", "$", '"', "'", "\\", "(", " ", ...ODD])}`;
      case 9:
        return this.pick(ODD);
      case 10:
        return this.pick([...CONTINUATIONS, "\\ ", "\\\t"]);
      case 11:
        return `$${this.pick(NAMES)}`;
      default:
        return this.pick(LITERALS);
    }
  }

  /** Text inside double quotes: plain text, expansions and substitutions. */
  quoted(depth: number): string {
    const deeper = Math.max(depth - 1, 0);
    let text = "";
    const count = 1 + Math.floor(this.next() * 3);
    for (let i = 0; i < count; i++) {
      const roll = this.next();
      if (roll < 0.3) text += this.expansion(deeper);
      else if (roll < 0.45 && depth > 0) text += this.substitution(deeper);
      else if (roll < 0.55) text += `\\${this.pick(["`", "$", '"', "\\", "a", "\n"])}`;
      else if (roll < 0.65) text += `'${this.pick(LITERALS)}'`;
      else text += this.plain(depth);
    }
    return text;
  }

  /** Text with no quote of its own: literals, odd bytes, substitution-like characters. */
  plain(depth: number): string {
    let text = this.pick(LITERALS);
    if (this.chance(0.3)) text += this.pick(ODD);
    if (this.chance(0.3)) text += depth > 0 ? this.substitution(depth - 1) : "$(h7)";
    return text.replace(/'/g, "");
  }

  redirect(depth: number): string {
    switch (Math.floor(this.next() * 10)) {
      case 0:
        return "> /dev/null";
      case 1:
        return "2>&1";
      case 2:
        return `>> ${this.word(depth)}`;
      case 3:
        return `< ${this.word(depth)}`;
      case 4:
        return `<<< ${this.word(depth)}`;
      case 5:
        return `&> out`;
      case 6:
        return `${this.pick(["3", "2", ""])}>${this.pick(["", "|", "&"])} ${this.word(depth)}`;
      default:
        return this.heredoc(depth);
    }
  }

  heredoc(depth: number): string {
    const dash = this.chance(0.3);
    const written = this.pick(DELIMITERS);
    const delimiter = written.replace(/['"\\]/g, "");
    const lines: string[] = [];
    const count = 1 + Math.floor(this.next() * 3);
    for (let i = 0; i < count; i++) {
      const indent = dash && this.chance(0.5) ? "\t" : "";
      const roll = this.next();
      if (roll < 0.3) lines.push(indent + this.quoted(depth));
      else if (roll < 0.5) lines.push(`${indent}#${this.substitution(Math.max(depth - 1, 0))}`);
      else if (roll < 0.6) lines.push(`${indent}${delimiter}x`);
      else lines.push(indent + this.plain(depth));
    }
    const endIndent = dash && this.chance(0.5) ? "\t" : "";
    this.#pending.push(`${lines.join("\n")}\n${endIndent}${delimiter}\n`);
    return `<<${dash ? "-" : ""}${written}`;
  }
}

/** Case `index` of the run seeded `seed`. */
export function fuzzLine(seed: number, index: number): string {
  return new LineWriter(seededRandom(caseSeed(seed, index))).line();
}
