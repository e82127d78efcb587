/**
 * Where tree-sitter-bash and bash read the same text apart, for the walk in
 * shell_commands.ts: blanks one of them does not count as blanks, a comment
 * tree-sitter starts inside a word, the target bash expands twice, and the
 * text of a node its children do not cover. Each was found by comparing
 * the two (tests/permission/shell_fuzz_test.ts, `deno task fuzz`).
 */
import type { Node } from "web-tree-sitter";

/**
 * Characters bash reads as part of a word but tree-sitter-bash as blanks
 * (found by parsing every BMP character between two letters): `\r`, `\v`,
 * `\f`, and a space or tab after an unescaped backslash (tree-sitter-bash
 * skips `\ ` as a blank where a token would start; to bash it is a word
 * character, so `\ ` alone is a command named " "). Before parsing, each
 * becomes a private-use character the parser reads as a word character, as
 * bash does; every text is given back with the original character. So
 * `git status \` + CR LF + `sh -c …` is two commands, as in bash, not one
 * with a line continuation.
 */
const BLANKS_TO_TREE_SITTER = /[\r\v\f]|(?<=(?:^|[^\\])(?:\\\\)*\\)[ \t]/g;
const STAND_INS = /[\uE009\uE00B-\uE00D\uE020]/g;

/** `source` with those characters replaced by their stand-ins (the same string when none). */
export function toStandIns(source: string): string {
  if (source.search(BLANKS_TO_TREE_SITTER) < 0) return source;
  return source.replace(
    BLANKS_TO_TREE_SITTER,
    (char) => String.fromCharCode(0xe000 + char.charCodeAt(0)),
  );
}

/** `text` with the original characters back. */
export function fromStandIns(text: string): string {
  return text.replace(STAND_INS, (char) => String.fromCharCode(char.charCodeAt(0) - 0xe000));
}

/** True when `source` holds a stand-in already: read back, it would change. */
export function holdsStandIn(source: string): boolean {
  return source.search(STAND_INS) >= 0;
}

/** Where bash starts a comment: `#` at the start of a word, after a blank or an operator. */
const BEFORE_COMMENT = /[ \t\n;&|()<>]/;

/**
 * True when tree-sitter-bash starts `comment` inside what bash reads as a
 * word: after a word character (`echo ] }#$(cmd); cmd2`), after a line
 * continuation (`a\` LF `#…`: bash removes it before reading words), or
 * after an escaped blank (`\ #…`: tree-sitter-bash skips `\ ` as a blank,
 * to bash it is a space inside a word).
 */
export function commentInsideWord(comment: Node, source: string): boolean {
  let at = comment.startIndex - 1;
  while (source[at] === "\n" && escaped(source, at)) at -= 2;
  const before = source[at];
  if (before === undefined) return false;
  if (!BEFORE_COMMENT.test(before)) return true;
  return (before === " " || before === "\t") && escaped(source, at);
}

/** True when the character at `at` follows an odd number of backslashes. */
function escaped(source: string, at: number): boolean {
  let count = 0;
  while (source[at - 1 - count] === "\\") count++;
  return count % 2 === 1;
}

/**
 * True for a `>&` or `n>&` redirect whose target holds `$`, a backtick,
 * `<(` or `>(`: bash expands the target once more when it is no file
 * descriptor, so `>& '$(cmd)'` and `>& 'a >(cmd)'` run `cmd` whatever the
 * quotes.
 */
export function expandedTwice(redirect: Node): boolean {
  const destination = redirect.childForFieldName("destination");
  return !!destination && /^\d*[<>]&/.test(redirect.text) &&
    /[$`]|[<>]\(/.test(destination.text);
}

/** The source of `node` that its named children do not cover. */
export function ownText(node: Node, source: string): string {
  let text = "";
  let at = node.startIndex;
  for (const child of node.namedChildren) {
    if (!child) continue;
    text += source.slice(at, child.startIndex);
    at = child.endIndex;
  }
  return text + source.slice(at, node.endIndex);
}

/** True when `node` sits in a `${ }` (and not in a substitution inside it). */
export function insideExpansion(node: Node): boolean {
  for (let up = node.parent; up; up = up.parent) {
    if (up.type === "expansion") return true;
    if (up.type === "command_substitution" || up.type === "process_substitution") return false;
  }
  return false;
}

/** True when `node` has an ancestor of `type`. */
export function inside(node: Node, type: string): boolean {
  for (let up = node.parent; up; up = up.parent) if (up.type === type) return true;
  return false;
}
