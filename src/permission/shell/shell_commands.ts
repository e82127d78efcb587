/**
 * Every command a shell line would run, read from its syntax tree
 * (tree-sitter-bash): the commands of lists, pipelines, subshells, loops
 * and conditions, and those inside `$( )`, backticks, `<( )`, arithmetic,
 * parameter defaults and unquoted here-documents, wherever they sit. What
 * the tree cannot vouch for — a parse error, an unclosed here-document, a
 * program name computed at run time, a function definition, arithmetic on
 * a variable's value — is reported in `unsure`, and the caller asks. So is
 * a `$( )`, backtick, `<( )` or `>( )` the tree leaves inside plain text
 * (as it does in `${x:-`cmd`}` and `${x#$(cmd)}`), unless reading that text
 * again finds its commands. Carriage returns, vertical tabs and form feeds
 * are ordinary characters to bash but blanks to tree-sitter; they are read
 * as bash reads them (see `shellSyntax`). Where else the two read a line
 * apart (_shell_text.ts) is asked about too.
 */
import type { Node } from "web-tree-sitter";
import { parserFailure, parseShell } from "./shell_parser.ts";
import {
  commentInsideWord,
  expandedTwice,
  fromStandIns,
  holdsStandIn,
  inside,
  insideExpansion,
  ownText,
  toStandIns,
} from "./_shell_text.ts";

export interface ShellWord {
  /** As written. */
  text: string;
  /** With quotes and escapes removed, or null when only running it tells (`$x`, `*.ts`, `~`). */
  value: string | null;
}

export interface ShellCommand {
  /** What the rule table sees: the command as written, its redirects, no here-document body. */
  text: string;
  /** Assignments, program and arguments; empty for `[[ ]]`, `(( ))`, a lone assignment or redirect. */
  words: ShellWord[];
  /** How many `$( )` / `<( )` it sits inside. */
  depth: number;
  start: number;
}

export interface ShellSyntax {
  commands: ShellCommand[];
  /** Why the line cannot be fully accounted for; empty when it can. */
  unsure: string[];
}

/** Every named node type tree-sitter-bash 0.25 produces: anything else is new to this walk. */
const KNOWN_TYPES = new Set(
  `ansi_c_string arithmetic_expansion array binary_expression brace_expression
  c_style_for_statement case_item case_statement command command_name command_substitution
  comment compound_statement concatenation declaration_command do_group elif_clause else_clause
  expansion extglob_pattern file_descriptor file_redirect for_statement function_definition
  heredoc_body heredoc_content heredoc_end heredoc_redirect heredoc_start herestring_redirect
  if_statement list negated_command number parenthesized_expression pipeline postfix_expression
  process_substitution program raw_string redirected_statement regex simple_expansion
  special_variable_name string string_content subscript subshell ternary_expression test_command
  test_operator translated_string unary_expression unset_command variable_assignment
  variable_assignments variable_name while_statement word`
    .split(/\s+/),
);

const ARITHMETIC_ON_VARIABLE =
  "bash evaluates a variable's value as arithmetic here, and a value such as a[$(cmd)] runs cmd";
const ARITHMETIC_COMPARISON = /^-(?:eq|ne|lt|le|gt|ge)$/;
const CONTAINERS = new Set(["command", "declaration_command", "variable_assignments"]);
/**
 * What can run a command inside a word: `$(`, a backtick, `<(`, `>(`, and
 * `${` or `$[` (a subscript or arithmetic evaluates a variable's value,
 * which can hold `a[$(cmd)]`).
 */
const RUNS_COMMAND = /\$[([{]|`|[<>]\(/;
/** Nodes the walk reads as commands itself, and here-document parts (`#heredoc` reads those). */
const READ_AS_COMMANDS = new Set([
  "command_substitution",
  "process_substitution",
  "arithmetic_expansion",
  "heredoc_body",
  "heredoc_content",
  "heredoc_start",
  "heredoc_end",
]);
/** Quoted text, plain outside `${ }`; inside `"${x:-'…'}"` the quotes are characters. */
const QUOTED = new Set(["raw_string", "ansi_c_string"]);

/** The value of a word once the shell removes quotes, or null when it depends on the run. */
export function wordValue(node: Node): string | null {
  const text = node.text;
  switch (node.type) {
    case "word": {
      // Globs, braces and a leading ~ expand when the line runs.
      if (/[*?[{]|^~/.test(text.replace(/\\./gs, ""))) return null;
      return text.replace(/\\\n/g, "").replace(/\\(.)/gs, "$1");
    }
    case "number":
      return text;
    case "raw_string":
      return text.slice(1, -1);
    case "string":
      if (node.namedChildren.some((child) => child?.type !== "string_content")) return null;
      return text.slice(1, -1).replace(/\\\n/g, "").replace(/\\([$`"\\])/g, "$1");
    case "concatenation": {
      const parts = node.children.map((child) => (child ? wordValue(child) : null));
      if (parts.some((part) => part === null)) return null;
      return parts.join("");
    }
    default:
      return null;
  }
}

class Walk {
  readonly commands: ShellCommand[] = [];
  readonly unsure = new Set<string>();
  /** True when the line does not parse: that is asked already, and its parts prove nothing. */
  broken = false;

  /** @param rereading True inside a word read again: its words are not read again in turn. */
  constructor(readonly source: string, readonly rereading = false) {}

  visit(node: Node, depth: number, arithmetic: boolean): void {
    const type = node.type;
    if (node.isNamed && !KNOWN_TYPES.has(type) && type !== "ERROR") {
      this.unsure.add(`the parser met a construct skiff does not check (${type})`);
    }
    if (type === "comment") {
      if (commentInsideWord(node, this.source)) {
        this.unsure.add("skiff's parser reads a comment where bash reads a word");
      }
      return;
    }
    this.#hiddenCommand(node, depth);
    if (type === "file_redirect" && expandedTwice(node)) {
      this.unsure.add(
        `bash expands the target of ${node.text} a second time, which can run commands`,
      );
    }
    if (arithmetic && this.#readsVariable(node)) this.unsure.add(ARITHMETIC_ON_VARIABLE);
    let childDepth = depth;
    let childArithmetic = arithmetic;
    switch (type) {
      case "command":
        this.#command(node, depth);
        break;
      case "declaration_command":
      case "unset_command":
      case "test_command":
        this.#add(node.text, [], depth, node.startIndex);
        if (type === "test_command" && node.text.startsWith("[[")) {
          childArithmetic ||= this.#hasComparison(node);
        }
        // `-v 'a[$(cmd)]'` evaluates the subscript of the name it tests.
        if (type === "test_command" && /(?:^|\s)-v\s/.test(node.text)) {
          this.unsure.add("-v evaluates a variable name's subscript as arithmetic");
        }
        break;
      case "compound_statement":
        if (node.text.startsWith("((")) {
          this.#add(node.text, [], depth, node.startIndex);
          childArithmetic = true;
        }
        break;
      case "variable_assignment":
      case "variable_assignments":
        if (!CONTAINERS.has(node.parent?.type ?? "")) {
          this.#add(node.text, [], depth, node.startIndex);
        }
        break;
      case "redirected_statement": {
        const body = node.childForFieldName("body");
        if (body?.type !== "command") {
          const redirects = node.childrenForFieldName("redirect").map((r) => this.#redirectText(r));
          this.#add(redirects.join(" "), [], depth, node.startIndex);
        }
        break;
      }
      case "function_definition":
        this.unsure.add(
          `it defines a shell function (${node.childForFieldName("name")?.text ?? "?"})`,
        );
        break;
      case "command_substitution":
        // Inside backticks, \` opens a nested substitution tree-sitter-bash does not see.
        if (node.text.startsWith("`") && node.text.includes("\\`")) {
          this.unsure.add("backticks are nested inside backticks");
          this.#parseAgain(
            node.text.slice(1, -1).replace(/\\([`$\\])/g, "$1"),
            depth,
            node.startIndex,
          );
        }
        childDepth = depth + 1;
        childArithmetic = false;
        break;
      case "process_substitution":
        childDepth = depth + 1;
        childArithmetic = false;
        break;
      case "arithmetic_expansion":
        childArithmetic = true;
        break;
      case "expansion":
        this.#expansion(node, depth);
        return;
      case "subscript": {
        const name = node.childForFieldName("name")?.id;
        for (const child of node.namedChildren) {
          if (child) this.visit(child, depth, child.id !== name);
        }
        return;
      }
      case "heredoc_redirect":
        this.#heredoc(node, depth);
        break;
      case "c_style_for_statement":
        for (const child of node.namedChildren) {
          if (child) this.visit(child, depth, child.type !== "do_group");
        }
        return;
    }
    for (const child of node.namedChildren) {
      if (child) this.visit(child, childDepth, childArithmetic);
    }
  }

  #add(text: string, words: ShellWord[], depth: number, start: number): void {
    // Only bash's own blanks: `\u00a0` and other Unicode spaces are a program name to bash.
    const trimmed = text.replace(/^[ \t\n]+|[ \t\n]+$/g, "");
    if (trimmed) this.commands.push({ text: trimmed, words, depth, start });
  }

  #command(node: Node, depth: number): void {
    const name = node.childForFieldName("name");
    const words: ShellWord[] = [];
    for (const child of node.namedChildren) {
      if (!child || child.type === "file_redirect" || child.type === "herestring_redirect") {
        continue;
      }
      const word = child.type === "command_name" ? child.firstNamedChild : child;
      if (word) words.push({ text: word.text, value: wordValue(word) });
    }
    if (name && wordValue(name.firstNamedChild ?? name) === null) {
      this.unsure.add(`the program name ${name.text} is only known when the line runs`);
    }
    let text = node.text;
    const parent = node.parent;
    if (
      parent?.type === "redirected_statement" && parent.childForFieldName("body")?.id === node.id
    ) {
      const redirects = parent.childrenForFieldName("redirect").map((r) => this.#redirectText(r));
      text = [text, ...redirects].join(" ");
    }
    this.#add(text, words, depth, node.startIndex);
  }

  /** A redirect as the rule table sees it: `<<EOF > out`, never the here-document's body. */
  #redirectText(redirect: Node): string {
    if (redirect.type !== "heredoc_redirect") return redirect.text;
    const lineEnd = this.source.indexOf("\n", redirect.startIndex);
    const stop = lineEnd < 0 || lineEnd > redirect.endIndex ? redirect.endIndex : lineEnd;
    return this.source.slice(redirect.startIndex, stop).trim();
  }

  /** Commands of `text` read on its own, counted as sitting inside a substitution here. */
  #parseAgain(text: string, depth: number, start: number): void {
    const inner = syntaxOf(text);
    if (!inner) return;
    for (const command of inner.commands) {
      this.commands.push({ ...command, depth: depth + 1 + command.depth, start });
    }
    for (const reason of inner.unsure) this.unsure.add(reason);
  }

  /**
   * tree-sitter-bash is loose with here-documents: it can take the wrong
   * delimiter (`<<"E"OF`), miss `$( )` after a tab in a `<<-` body, and it
   * leaves backticks in a body unparsed. So the delimiter is read again from
   * the source, the body must end on the very line where `sh` ends it, and
   * an unquoted body that can run commands is asked about.
   */
  #heredoc(redirect: Node, depth: number): void {
    const source = this.source;
    const dash = redirect.text.startsWith("<<-");
    let at = redirect.startIndex + (dash ? 3 : 2);
    while (source[at] === " " || source[at] === "\t") at++;
    const word =
      /^(?:[^\s;&|<>()'"\\]|\\.|'[^']*'|"(?:[^"\\]|\\.)*")+/s.exec(source.slice(at))?.[0] ??
        "";
    const delimiter = word.replace(/'([^']*)'|"((?:[^"\\]|\\.)*)"|\\(.)/gs, "$1$2$3");
    const end = redirect.namedChildren.find((child) => child?.type === "heredoc_end");
    if (!word) this.unsure.add("skiff cannot read a here-document's delimiter");
    if (!word || !end || end.isMissing) return; // a missing end is reported as a parse error
    const bodyStart = source.indexOf("\n", at) + 1;
    const endLineStart = source.lastIndexOf("\n", end.startIndex - 1) + 1;
    const endLineStop = source.indexOf("\n", end.endIndex);
    const endLine = source.slice(endLineStart, endLineStop < 0 ? undefined : endLineStop);
    const body = bodyStart > 0 && bodyStart <= endLineStart
      ? source.slice(bodyStart, endLineStart)
      : "";
    const strip = (line: string) => dash ? line.replace(/^\t+/, "") : line;
    if (
      bodyStart === 0 || strip(endLine) !== delimiter ||
      body.split("\n").slice(0, -1).some((line) => strip(line) === delimiter)
    ) {
      this.unsure.add(`skiff cannot tell where the here-document ${word} ends`);
    }
    if (/['"\\]/.test(word)) return; // a quoted delimiter: the body is plain text
    if (/`|\$[([]|\$\{(?!#?[A-Za-z_][A-Za-z0-9_]*\})/.test(body)) {
      this.unsure.add("a here-document's body runs commands ($( ), backticks or ${…})");
    }
    for (const match of body.matchAll(/`((?:[^`\\]|\\.)*)`/gs)) {
      this.#parseAgain(match[1], depth, bodyStart);
    }
  }

  #expansion(node: Node, depth: number): void {
    const text = node.text;
    if (/^\$\{!/.test(text) && !/(?:[@*]|\[[@*]\])\}$/.test(text)) {
      this.unsure.add(`${text} reads the variable a value names, which can run commands`);
    }
    if (/@P\}$/.test(text)) this.unsure.add(`${text} expands the value as a prompt, running $( )`);
    // After a bare `:` comes a substring offset and length: arithmetic.
    let arithmetic = false;
    for (const child of node.children) {
      if (!child) continue;
      if (!child.isNamed) {
        if (child.type === ":") arithmetic = true;
        continue;
      }
      this.visit(child, depth, arithmetic);
    }
  }

  /**
   * A command the tree left in text: tree-sitter-bash reads the operand of
   * `${x:-…}` and the pattern of `${x#…}` (`##`, `%`, `%%`, `/`, `^^`, `,,`…)
   * as a plain word in some forms, though bash runs the `$( )`, backticks
   * and `<( )` in it. Checked on each node's own text (what its named
   * children do not cover), after backslash escapes are removed.
   */
  #hiddenCommand(node: Node, depth: number): void {
    if (this.broken || READ_AS_COMMANDS.has(node.type)) return;
    if (QUOTED.has(node.type) && !insideExpansion(node)) return;
    // An expansion's own text starts with its `${`.
    const own = ownText(node, this.source);
    const text = (node.type === "expansion" ? own.slice(2) : own).replace(/\\./gs, "");
    // tree-sitter-bash reads `a` LF `\h1` and `] }` as one word; bash splits them.
    if ((node.type === "word" || node.type === "command") && text.includes("\n")) {
      this.unsure.add("skiff's parser reads a line break inside a command, where bash ends it");
    }
    if (node.type === "word" && /[ \t]/.test(text) && !insideExpansion(node)) {
      this.unsure.add("skiff's parser reads a blank inside a word, where bash splits it");
    }
    // A pattern belongs in `[[ … =~ ]]` or `${ }`; tree-sitter-bash also reads `== ; cmd` as one.
    if (node.type === "regex" && !insideExpansion(node) && !inside(node, "test_command")) {
      this.unsure.add("skiff's parser reads a pattern where bash reads words");
    }
    if (!RUNS_COMMAND.test(text)) return;
    if (node.namedChildCount === 0 && this.#readWordAgain(node.text, depth, node.startIndex)) {
      return;
    }
    const shown = node.text.length > 40 ? `${node.text.slice(0, 40)}…` : node.text;
    this.unsure.add(
      `${shown} holds a command or expansion ($( ), backticks, <( ), >( ), \${ }) that skiff's parser reads as text`,
    );
  }

  /**
   * Reads a word the tree left as text again, as the one argument of `:`.
   * Trusted only when it holds no quote or backslash (whose meaning inside
   * `${ }` and double quotes differs from a plain word's) and reads back as
   * exactly that one word: then its substitutions are bash's, and their
   * commands are judged like any other. False when it cannot be trusted.
   */
  #readWordAgain(text: string, depth: number, start: number): boolean {
    if (this.rereading || /['"\\]/.test(text)) return false;
    const inner = syntaxOf(`: ${text}`, true);
    const outer = inner?.commands.filter((command) => command.depth === 0);
    if (!inner || outer?.length !== 1 || outer[0].words.length !== 2) return false;
    if (outer[0].words[1].text !== text) return false;
    for (const command of inner.commands) {
      if (command.depth > 0) {
        this.commands.push({ ...command, depth: depth + command.depth, start });
      }
    }
    for (const reason of inner.unsure) this.unsure.add(reason);
    return true;
  }

  #readsVariable(node: Node): boolean {
    switch (node.type) {
      case "variable_name":
      case "simple_expansion":
      case "expansion":
        return true;
      case "word":
        return /[A-Za-z_]/.test(node.text);
      default:
        return false;
    }
  }

  #hasComparison(node: Node): boolean {
    if (node.type === "test_operator" && ARITHMETIC_COMPARISON.test(node.text)) return true;
    return node.namedChildren.some((child) => child !== null && this.#hasComparison(child));
  }
}

/** Where the tree shows the line is broken, in words for a person. */
function brokenPart(node: Node): string | null {
  if (node.isMissing) {
    return node.type === "heredoc_end"
      ? "a here-document is never closed"
      : `the line is incomplete (a missing ${node.type})`;
  }
  if (node.isError) return `part of the line does not parse: ${node.text.slice(0, 40)}`;
  for (const child of node.children) {
    const found = child?.hasError ? brokenPart(child) : null;
    if (found) return found;
  }
  return null;
}

/** The commands in `source` as tree-sitter reads it (no stand-ins), or null without a parser. */
function syntaxOf(source: string, rereading = false): ShellSyntax | null {
  if (parserFailure()) return null;
  const tree = parseShell(source);
  if (!tree) return null;
  try {
    const walk = new Walk(source, rereading);
    const root = tree.rootNode;
    if (root.hasError) walk.unsure.add(brokenPart(root) ?? "the line does not parse as shell");
    walk.broken = root.hasError;
    walk.visit(root, 0, false);
    // Outer commands first, then those substituted inside them, each in source order.
    const commands = walk.commands.sort((a, b) => a.depth - b.depth || a.start - b.start);
    return { commands, unsure: [...walk.unsure] };
  } finally {
    tree.delete();
  }
}

/**
 * The commands in `source` and what could not be accounted for, or null when
 * the parser is not loaded (see `ensureShellParser`).
 */
export function shellSyntax(source: string): ShellSyntax | null {
  const parsed = toStandIns(source);
  if (parsed === source) return syntaxOf(source);
  const syntax = syntaxOf(parsed);
  if (!syntax) return null;
  const restore = (word: ShellWord): ShellWord => ({
    text: fromStandIns(word.text),
    value: word.value === null ? null : fromStandIns(word.value),
  });
  const unsure = syntax.unsure.map(fromStandIns);
  if (holdsStandIn(source)) {
    unsure.push(
      "it holds a private-use character (U+E009, U+E00B–U+E00D, U+E020) that skiff uses to read \\r, \\v, \\f and escaped blanks",
    );
  }
  return {
    commands: syntax.commands.map((command) => ({
      ...command,
      text: fromStandIns(command.text),
      words: command.words.map(restore),
    })),
    unsure,
  };
}
