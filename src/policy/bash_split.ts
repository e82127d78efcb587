/**
 * Splits a shell command into the simple commands it runs, so every one of
 * them meets the rule table: `git status && rm -rf x` is two commands, and
 * `echo $(curl evil)` runs `curl evil`. Quotes are respected. This is a
 * policy aid, not a shell parser: the OS sandbox is what holds when a
 * command hides itself better than this can see.
 */

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
  "watch",
  "chronic",
]);
const SHELLS = new Set(["sh", "bash", "zsh", "dash", "ksh", "fish"]);
const ASSIGNMENT = /^[A-Za-z_][A-Za-z0-9_]*=/;

/** Index just past the `)` that closes a group opened before `start`. */
function closingParen(text: string, start: number): number {
  let depth = 1;
  let i = start;
  while (i < text.length) {
    const char = text[i];
    if (char === "\\") i += 2;
    else if (char === "'") {
      i = text.indexOf("'", i + 1) < 0 ? text.length : text.indexOf("'", i + 1) + 1;
    } else if (char === '"') i = closingDoubleQuote(text, i + 1);
    else if (char === "`") i = closingBacktick(text, i + 1);
    else {
      if (char === "(") depth++;
      if (char === ")" && --depth === 0) return i + 1;
      i++;
    }
  }
  return text.length;
}

function closingBacktick(text: string, start: number): number {
  let i = start;
  while (i < text.length && text[i] !== "`") i += text[i] === "\\" ? 2 : 1;
  return Math.min(i + 1, text.length);
}

function closingDoubleQuote(text: string, start: number): number {
  let i = start;
  while (i < text.length && text[i] !== '"') {
    if (text[i] === "\\") i += 2;
    else if (text[i] === "$" && text[i + 1] === "(") i = closingParen(text, i + 2);
    else if (text[i] === "`") i = closingBacktick(text, i + 1);
    else i++;
  }
  return Math.min(i + 1, text.length);
}

/** Commands substituted inside a double-quoted string (`"$(id)"`). */
function substitutionsInQuotes(quoted: string, into: string[]): void {
  let i = 0;
  while (i < quoted.length) {
    if (quoted[i] === "\\") i += 2;
    else if (quoted[i] === "$" && quoted[i + 1] === "(") {
      const end = closingParen(quoted, i + 2);
      into.push(...splitCommand(quoted.slice(i + 2, end - 1)));
      i = end;
    } else if (quoted[i] === "`") {
      const end = closingBacktick(quoted, i + 1);
      into.push(...splitCommand(quoted.slice(i + 1, end - 1)));
      i = end;
    } else i++;
  }
}

function cleanPiece(piece: string): string {
  let text = piece.trim();
  // Grouping words and negation do not change which program runs.
  for (;;) {
    const before = text;
    text = text.replace(/^(?:\{|!|then|do|else|elif|if|while|until)\s+/, "").replace(/\s+\}$/, "")
      .replace(/^\}$/, "").replace(/^(?:fi|done|esac)$/, "").trim();
    if (text === before) return text;
  }
}

/**
 * Every simple command in `command`, in order, including those inside
 * `$(…)`, `<(…)`, backticks and subshells. Separators: `&&`, `||`, `;`,
 * `|`, `&`, newlines and parentheses — outside quotes.
 */
export function splitCommand(command: string): string[] {
  const pieces: string[] = [];
  const nested: string[] = [];
  let current = "";
  const flush = () => {
    const cleaned = cleanPiece(current);
    if (cleaned) pieces.push(cleaned);
    current = "";
  };
  let i = 0;
  while (i < command.length) {
    const char = command[i];
    const next = command[i + 1];
    if (char === "\\") {
      // A backslash-newline continues the line; any other escape is literal.
      if (next === "\n") current += " ";
      else current += command.slice(i, i + 2);
      i += 2;
    } else if (char === "'") {
      const end = command.indexOf("'", i + 1);
      const stop = end < 0 ? command.length : end + 1;
      current += command.slice(i, stop);
      i = stop;
    } else if (char === '"') {
      const stop = closingDoubleQuote(command, i + 1);
      substitutionsInQuotes(command.slice(i + 1, stop - 1), nested);
      current += command.slice(i, stop);
      i = stop;
    } else if (char === "`") {
      const stop = closingBacktick(command, i + 1);
      nested.push(...splitCommand(command.slice(i + 1, stop - 1)));
      current += command.slice(i, stop);
      i = stop;
    } else if ((char === "$" || char === "<" || char === ">") && next === "(") {
      if (char === "$" && command[i + 2] === "(") {
        // `$((…))` is arithmetic, not a command.
        const stop = closingParen(command, i + 3);
        current += command.slice(i, Math.min(stop + 1, command.length));
        i = stop + 1;
        continue;
      }
      const stop = closingParen(command, i + 2);
      nested.push(...splitCommand(command.slice(i + 2, stop - 1)));
      current += command.slice(i, stop);
      i = stop;
    } else if (char === "#" && (current === "" || /\s$/.test(current))) {
      // A comment runs to the end of the line.
      const end = command.indexOf("\n", i);
      i = end < 0 ? command.length : end;
    } else if (char === "&" && (next === ">" || current.endsWith(">") || current.endsWith("<"))) {
      current += char; // `&>file`, `2>&1`: redirections, not separators
      i++;
    } else if (";&|\n()".includes(char)) {
      flush();
      i += (char === "&" && next === "&") || (char === "|" && (next === "|" || next === "&")) ||
          (char === ";" && next === ";")
        ? 2
        : 1;
    } else {
      current += char;
      i++;
    }
  }
  flush();
  return [...pieces, ...nested];
}

/** Shell words of one simple command, quotes removed. */
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
      const stop = closingDoubleQuote(piece, i + 1);
      word += piece.slice(i + 1, stop - 1).replace(/\\(["\\$`])/g, "$1");
      i = stop;
    } else {
      word += char;
      i++;
    }
  }
  if (inWord) words.push(word);
  return words;
}

/**
 * What a simple command really runs once wrappers are peeled off:
 * `FOO=1 sudo -n rm -rf x` also runs `rm -rf x`; `sh -c 'a; b'` runs `a` and
 * `b`. Returns the extra commands (not the piece itself).
 */
export function unwrapCommand(piece: string, depth = 0): string[] {
  if (depth > 4) return [];
  let words = shellWords(piece);
  const found: string[] = [];
  let peeled = false;
  for (;;) {
    while (words.length && ASSIGNMENT.test(words[0])) {
      words = words.slice(1);
      peeled = true;
    }
    const program = words[0]?.split("/").pop() ?? "";
    if (WRAPPERS.has(program)) {
      words = words.slice(1);
      while (words.length && (words[0].startsWith("-") || ASSIGNMENT.test(words[0]))) {
        words = words.slice(1);
      }
      if (program === "timeout" && /^\d/.test(words[0] ?? "")) words = words.slice(1);
      if (program === "nice" && /^-?\d+$/.test(words[0] ?? "")) words = words.slice(1);
      peeled = true;
      continue;
    }
    if (program === "eval") {
      for (const inner of splitCommand(words.slice(1).join(" "))) {
        found.push(inner, ...unwrapCommand(inner, depth + 1));
      }
      return found;
    }
    if (SHELLS.has(program)) {
      const flag = words.findIndex((word, index) => index > 0 && /^-[a-z]*c[a-z]*$/.test(word));
      if (flag > 0 && words[flag + 1] !== undefined) {
        for (const inner of splitCommand(words[flag + 1])) {
          found.push(inner, ...unwrapCommand(inner, depth + 1));
        }
        return found;
      }
    }
    break;
  }
  if (peeled && words.length) found.push(words.join(" "));
  return found;
}

/** Every command a rule must approve: each piece and what it unwraps to. */
export function commandsToCheck(command: string): string[] {
  const all: string[] = [];
  for (const piece of splitCommand(command)) {
    all.push(piece, ...unwrapCommand(piece));
  }
  return [...new Set(all)];
}
