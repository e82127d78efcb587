/**
 * grep's TypeScript engine, for machines without ripgrep. It walks the same
 * files (the shared gitignore-aware walk), treats a file holding a NUL byte as
 * binary and skips it, and matches line by line, so its results equal the
 * ripgrep engine's. A whole-file test first lets the many files without a
 * match be passed over without splitting them into lines.
 */
import { walkTree } from "./_walk.ts";
import { type GrepCollector, withContext } from "./_grep_results.ts";
import { ToolError } from "../tool.ts";

export interface GrepQuery {
  pattern: string;
  /** Absolute, real search root. */
  root: string;
  rootIsFile: boolean;
  /** Filter on the root-relative path (the file name when the root is a file). */
  include?: (relative: string) => boolean;
  context: number;
  signal?: AbortSignal;
}

/** Larger files are not searched: their text would not fit in one string. */
const MAX_FILE_BYTES = 256 * 1024 * 1024;

/** The pattern as a JavaScript regular expression, or `invalid_pattern`. */
export function compilePattern(pattern: string): RegExp {
  let source = pattern;
  let flags = "m";
  // A leading (?i) is how ripgrep users ask for case-insensitivity.
  const inline = /^\(\?([imsx]+)\)/.exec(source);
  if (inline && !inline[1].includes("x")) {
    source = source.slice(inline[0].length);
    if (inline[1].includes("i")) flags += "i";
    if (inline[1].includes("s")) flags += "s";
  }
  try {
    return new RegExp(source, `${flags}u`);
  } catch {
    try {
      return new RegExp(source, flags);
    } catch (error) {
      throw new ToolError(
        "invalid_pattern",
        `Invalid regular expression "${pattern}": ${(error as Error).message}`,
        "Escape special characters such as ( [ { . * + ? with a backslash, or search for a simpler literal.",
      );
    }
  }
}

export async function searchWithFallback(
  query: GrepQuery,
  collector: GrepCollector,
): Promise<void> {
  const regex = compilePattern(query.pattern);
  const decoder = new TextDecoder();
  const searchFile = (file: string, relative: string) => {
    let bytes: Uint8Array;
    try {
      bytes = Deno.readFileSync(file);
    } catch {
      return;
    }
    if (bytes.length > MAX_FILE_BYTES || bytes.indexOf(0) !== -1) return;
    // A CRLF line ends before its \r, so `foo$` finds `foo\r\n` (ripgrep runs with --crlf).
    const text = decoder.decode(bytes).replaceAll("\r\n", "\n");
    if (!regex.test(text)) return;
    const lines = text.split("\n");
    if (lines[lines.length - 1] === "") lines.pop();
    const matched: number[] = [];
    for (let index = 0; index < lines.length; index++) {
      if (regex.test(lines[index])) matched.push(index);
    }
    if (matched.length) {
      collector.add({ relative, lines: withContext(lines, matched, query.context) });
    }
  };

  if (query.rootIsFile) {
    const name = query.root.split(/[\\/]/).pop() ?? "";
    if (!query.include || query.include(name)) searchFile(query.root, "");
    return;
  }
  for await (const entry of walkTree(query.root, { signal: query.signal })) {
    if (query.include && !query.include(entry.relative)) continue;
    searchFile(entry.path, entry.relative);
  }
}
