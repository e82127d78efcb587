/**
 * The reading of a frontmatter that is not strict YAML. Agent files written
 * for Claude Code often carry a one-line `description:` holding examples
 * (`Context: … user: "…" assistant: "…"`): colons and quotes inside a plain
 * value, which YAML refuses and which that tool reads anyway. So after a YAML
 * error the frontmatter is read again as top-level `key: rest of line` pairs,
 * lines that do not start a key continuing the one before. A value that is
 * valid YAML on its own (a number, a list, a quoted text) keeps its YAML
 * meaning; any other is its text as written. A value that opens a quote or
 * bracket and never closes it is still an error: that is a typing mistake,
 * not another tool's dialect.
 */
import type * as Yaml from "yaml";

/** A lenient reading: the keys' values and the 0-based line each key is on. */
export interface LenientReading {
  data: Record<string, unknown>;
  lines: Map<string, number>;
}

const KEY_LINE = /^([A-Za-z_][\w.-]*)[ \t]*:(?:[ \t]+(.*)|[ \t]*)$/;

/**
 * Reads `yamlText` as `key: value` lines, or returns undefined when even that
 * fails (the caller then reports the YAML error).
 */
export function readLeniently(
  yaml: typeof Yaml.default,
  yamlText: string,
): LenientReading | undefined {
  const entries: { key: string; line: number; first: string; more: string[] }[] = [];
  const lines = yamlText.split(/\r?\n/);
  for (const [index, line] of lines.entries()) {
    const key = KEY_LINE.exec(line);
    if (key) {
      entries.push({ key: key[1], line: index, first: (key[2] ?? "").trimEnd(), more: [] });
      continue;
    }
    if (/^\s*(#.*)?$/.test(line) && !entries.length) continue;
    // Text before any key is not a frontmatter this reading understands.
    if (!entries.length) return undefined;
    entries[entries.length - 1].more.push(line);
  }
  const reading: LenientReading = { data: {}, lines: new Map() };
  for (const { key, line, first, more } of entries) {
    const value = leniently(yaml, first, more);
    if (value === FAILED) return undefined;
    reading.data[key] = value;
    reading.lines.set(key, line);
  }
  return reading;
}

const FAILED = Symbol("failed");

function leniently(yaml: typeof Yaml.default, first: string, more: string[]): unknown {
  const rest = trimBlankEnd(more);
  if (!first) {
    if (!rest.length) return null;
    // A block under the key (a list, a map): YAML when it parses alone.
    const block = dedent(rest).join("\n");
    const parsed = parseAlone(yaml, block);
    return parsed === FAILED ? block.trim() : parsed;
  }
  const text = [first, ...rest.map((line) => line.trim())].join("\n");
  const parsed = parseAlone(yaml, text);
  if (parsed !== FAILED && (typeof parsed !== "object" || parsed === null)) return parsed;
  // A list or map only when written as one; `a: b` inside a text is text.
  if (parsed !== FAILED && (Array.isArray(parsed) ? text.startsWith("[") : text.startsWith("{"))) {
    return parsed;
  }
  if (/^["']/.test(text) || !balanced(text)) return FAILED;
  return text;
}

function parseAlone(yaml: typeof Yaml.default, text: string): unknown {
  const document = yaml.parseDocument(text, { prettyErrors: false });
  return document.errors.length ? FAILED : document.toJS();
}

/** Whether every `[` and `{` in the text closes, in order. */
function balanced(text: string): boolean {
  const open: string[] = [];
  for (const char of text) {
    if (char === "[" || char === "{") open.push(char === "[" ? "]" : "}");
    else if (char === "]" || char === "}") {
      if (open.pop() !== char) return false;
    }
  }
  return open.length === 0;
}

function trimBlankEnd(lines: string[]): string[] {
  let end = lines.length;
  while (end > 0 && !lines[end - 1].trim()) end--;
  return lines.slice(0, end);
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => line.trim()).map((line) => /^\s*/.exec(line)![0].length);
  const cut = Math.min(...indents);
  return lines.map((line) => line.slice(cut));
}
