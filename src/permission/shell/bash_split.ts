/**
 * The simple commands a bash line runs, each for the rule table to judge:
 * `git status && rm -rf x` is two commands, `echo $(curl evil)` runs
 * `curl evil`, `sudo -n rm x` and `sh -c 'rm x'` run `rm x`. The line is
 * read by a real shell parser (shell_commands.ts); whatever it cannot
 * account for is listed in `unsure`, and the policy asks instead of allowing.
 * The parser must be loaded first (`ensureShellParser`, once per process).
 */
import { type ShellCommand, shellSyntax, type ShellWord } from "./shell_commands.ts";
import { parserFailure } from "./shell_parser.ts";

export { ensureShellParser } from "./shell_parser.ts";

/** Programs that run the rest of their words as a command. */
const WRAPPERS = new Set([
  "sudo",
  "doas",
  "env",
  "command",
  "builtin",
  "exec",
  "nohup",
  "time",
  "nice",
  "ionice",
  "stdbuf",
  "timeout",
  "xargs",
  "chronic",
]);
/** A wrapper's options that take the next word as their value. */
const OPTION_VALUES: Record<string, Set<string>> = {
  sudo: new Set(["-u", "-g", "-C", "-D", "-h", "-p", "-r", "-t", "-U", "-T", "-R"]),
  doas: new Set(["-u", "-C"]),
  env: new Set(["-u", "-C", "--unset", "--chdir"]),
  nice: new Set(["-n", "--adjustment"]),
  ionice: new Set(["-c", "-n", "-p", "-P", "-u", "--class", "--classdata"]),
  stdbuf: new Set(["-i", "-o", "-e"]),
  timeout: new Set(["-s", "-k", "--signal", "--kill-after"]),
  xargs: new Set(["-a", "-d", "-E", "-I", "-L", "-n", "-P", "-s", "--arg-file", "--delimiter"]),
  watch: new Set(["-n", "--interval"]),
};
/** Programs that run their words as shell text: the text is parsed in turn. */
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish", "su"]);
/** Programs whose effect on what runs next cannot be read from the line. */
const UNSURE_PROGRAMS: Record<string, string> = {
  alias: "`alias` changes what a later word runs",
  coproc: "`coproc` runs a command the parser does not separate",
  trap: "`trap` keeps shell text to run later",
  enable: "`enable` can load new shell builtins",
  let: "`let` evaluates variables' values as arithmetic, which can run commands",
};
/**
 * Builtins that take a variable's name, and which of their words are names:
 * bash evaluates a name's subscript as arithmetic, so `read 'a[$(cmd)]'`
 * and `test -v 'a[$(cmd)]'` run `cmd` whatever the quotes.
 */
const NAME_WORDS: Record<string, "all" | string> = {
  read: "all",
  mapfile: "all",
  readarray: "all",
  getopts: "all",
  printf: "-v",
  test: "-v",
  "[": "-v",
  wait: "-p",
};
/** A subscript other than a number, `@` or `*`, or a name only known when the line runs. */
const EVALUATED_SUBSCRIPT = /\[(?![\d@*]*\])/;
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;
const FIND_EXEC = new Set(["-exec", "-execdir", "-ok", "-okdir"]);
const MAX_NESTING = 4;

export interface CommandAnalysis {
  /** Every command a rule must approve: each simple command and what it unwraps to. */
  commands: string[];
  /** Why the line cannot be fully accounted for; any entry makes the call an ask. */
  unsure: string[];
}

const shown = (word: ShellWord) => word.value ?? word.text;
const programOf = (word: ShellWord | undefined) => word?.value?.split("/").pop() ?? "";

/** Drops a wrapper's options (and their values) from the front of `words`. */
function skipOptions(program: string, words: ShellWord[]): ShellWord[] {
  const withValue = OPTION_VALUES[program] ?? new Set<string>();
  let rest = words;
  while (rest.length) {
    const text = shown(rest[0]);
    if (text === "--") return rest.slice(1);
    if (ASSIGNMENT.test(text) && program === "env") rest = rest.slice(1);
    else if (text.startsWith("-") && text.length > 1) {
      rest = rest.slice(withValue.has(text) ? 2 : 1);
    } else break;
  }
  if (program === "timeout" && /^\d/.test(shown(rest[0] ?? { text: "", value: "" }))) {
    rest = rest.slice(1);
  }
  return rest;
}

/** Shell text a program runs: `sh -c TEXT`, `eval WORDS…`, `watch WORDS…`, `env -S TEXT`. */
function shellText(program: string, words: ShellWord[]): ShellWord[] | null {
  if (program === "eval") return words.slice(1);
  if (program === "watch") return skipOptions(program, words.slice(1));
  if (SHELLS.has(program)) {
    const flag = words.findIndex((word, index) =>
      index > 0 && /^-[a-z]*c[a-z]*$/.test(shown(word))
    );
    return flag > 0 && words[flag + 1] ? [words[flag + 1]] : null;
  }
  if (program === "env") {
    const split = words.findIndex((word) => /^(?:-S|--split-string)$/.test(shown(word)));
    return split > 0 && words[split + 1] ? [words[split + 1]] : null;
  }
  return null;
}

/** True when a word that `option` (or, for "all", any word) makes a variable name has a subscript. */
function evaluatesSubscript(option: string, args: ShellWord[]): boolean {
  const names = option === "all"
    ? args.filter((word) => !shown(word).startsWith("-"))
    : args.filter((_, index) => index > 0 && shown(args[index - 1]) === option);
  return names.some((word) => word.value === null || EVALUATED_SUBSCRIPT.test(word.value));
}

/**
 * What one simple command really runs once wrappers are peeled off. Adds
 * the extra commands (not the command itself) to `found`, and to `unsure`
 * what cannot be known before it runs.
 */
function unwrap(command: ShellCommand, into: CommandAnalysis, nesting: number): void {
  let words = command.words;
  let peeled = false;
  if (words[0] && words[0].text !== words[0].value && words[0].value !== null) {
    // `\rm -rf x` and `r"m" -rf x` run rm: let rules written for `rm` see it.
    into.commands.push([words[0].value, ...command.text.split(/\s+/).slice(1)].join(" "));
  }
  for (;;) {
    while (words.length && ASSIGNMENT.test(words[0].text)) {
      words = words.slice(1);
      peeled = true;
    }
    if (!words.length) return;
    if (words[0].value === null) {
      into.unsure.push(`the program name ${words[0].text} is only known when the line runs`);
      return;
    }
    const program = programOf(words[0]);
    if (UNSURE_PROGRAMS[program]) into.unsure.push(UNSURE_PROGRAMS[program]);
    if (NAME_WORDS[program] && evaluatesSubscript(NAME_WORDS[program], words.slice(1))) {
      into.unsure.push(
        `${program} evaluates a variable name's subscript as arithmetic, which can run commands`,
      );
    }
    const text = shellText(program, words);
    if (text) {
      if (text.some((word) => word.value === null)) {
        into.unsure.push(`${program} runs shell text that is only known when the line runs`);
        return;
      }
      analyseInto(text.map(shown).join(" "), into, nesting + 1);
      return;
    }
    if (program === "find") {
      const start = words.findIndex((word) => FIND_EXEC.has(shown(word)));
      if (start < 0) break;
      const end = words.findIndex((word, index) => index > start && /^[;+]$/.test(shown(word)));
      words = words.slice(start + 1, end < 0 ? undefined : end);
      peeled = true;
      continue;
    }
    if (!WRAPPERS.has(program)) break;
    words = skipOptions(program, words.slice(1));
    peeled = true;
  }
  if (peeled && words.length) into.commands.push(words.map(shown).join(" "));
}

function analyseInto(source: string, into: CommandAnalysis, nesting: number): void {
  if (nesting > MAX_NESTING) {
    into.unsure.push(`shell text nested more than ${MAX_NESTING} deep`);
    return;
  }
  const syntax = shellSyntax(source);
  if (!syntax) {
    into.commands.push(source);
    into.unsure.push(parserFailure() ?? "the shell parser is not available");
    return;
  }
  into.unsure.push(...syntax.unsure);
  for (const command of syntax.commands) {
    into.commands.push(command.text);
    unwrap(command, into, nesting);
  }
}

/**
 * Every command a rule must approve in `command`, and why the line cannot
 * be fully accounted for (empty when it can). Without a loaded parser the
 * whole line is one command and the analysis is unsure.
 */
export function analyzeCommand(command: string): CommandAnalysis {
  const analysis: CommandAnalysis = { commands: [], unsure: [] };
  analyseInto(command, analysis, 0);
  return { commands: [...new Set(analysis.commands)], unsure: [...new Set(analysis.unsure)] };
}

/** Every command a rule must approve: each simple command and what it unwraps to. */
export function commandsToCheck(command: string): string[] {
  return analyzeCommand(command).commands;
}

/**
 * The simple commands of `command` as written, outer ones first, then
 * those inside substitutions. Throws when the parser is not loaded.
 */
export function splitCommand(command: string): string[] {
  const syntax = shellSyntax(command);
  if (!syntax) {
    throw new Error(`${parserFailure()}: await ensureShellParser() before splitting commands`);
  }
  return syntax.commands.map((found) => found.text);
}

/**
 * Shell words of one simple command, quotes removed, by plain scanning:
 * for reading the words of a command already split out, not for policy on
 * a whole line.
 */
export function shellWords(piece: string): string[] {
  const words: string[] = [];
  let word = "";
  let inWord = false;
  let i = 0;
  while (i < piece.length) {
    const char = piece[i];
    if (/\s/.test(char)) {
      if (inWord) words.push(word);
      word = "";
      inWord = false;
      i++;
      continue;
    }
    inWord = true;
    if (char === "\\") {
      word += piece[i + 1] ?? "";
      i += 2;
    } else if (char === "'") {
      const end = piece.indexOf("'", i + 1);
      const stop = end < 0 ? piece.length : end;
      word += piece.slice(i + 1, stop);
      i = stop + 1;
    } else if (char === '"') {
      let stop = i + 1;
      while (stop < piece.length && piece[stop] !== '"') stop += piece[stop] === "\\" ? 2 : 1;
      word += piece.slice(i + 1, stop).replace(/\\(["\\$`])/g, "$1");
      i = stop + 1;
    } else {
      word += char;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}
