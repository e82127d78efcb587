/**
 * The symbol tool: where an identifier is defined and where it is used. grep
 * finds the lines that name it on word boundaries (the same engines, ignore
 * rules and read rules as the grep tool); each line is then a definition when
 * a definition pattern of its file's language matches it (_symbol_patterns.ts),
 * a reference otherwise. The name is a literal: it is escaped before it
 * becomes a pattern, so symbol never turns into grep under another name.
 */
import * as path from "../../lib/path.ts";
import * as z from "zod";
import { globMatcher } from "./_glob_match.ts";
import { type FileHits, GrepCollector } from "./_grep_results.ts";
import { keptBackFiles, keptBackNote, withoutKeptBack } from "./_grep_kept_back.ts";
import { displayUnder, resolveSearchRoot, searchAccess, statRoot } from "./_search_root.ts";
import { type GrepQuery, searchWithFallback } from "./_grep_fallback.ts";
import { searchWithRipgrep } from "./_grep_rg.ts";
import { chooseEngine, type GrepEngine } from "./grep.ts";
import { languageOf, type LanguagePatterns, LANGUAGES } from "./_symbol_patterns.ts";
import { loadSearchLibraries } from "./_search_libraries.ts";
import { defineTool, type Tool, ToolError } from "../tool.ts";

/** At most this many lines of each kind are shown. */
export const SYMBOL_DEFINITION_LIMIT = 50;
export const SYMBOL_REFERENCE_LIMIT = 100;
const MAX_LINE_CHARS = 300;
/**
 * The definition patterns backtrack on long lines (a 1 MB line of `f():`
 * never finished), and a regular expression cannot be stopped once begun:
 * only lines up to this long are tested (tens of ms at worst), and all the
 * tests of one call share a time budget; past either, a line counts as a
 * reference and the answer says how many were not judged.
 */
export const MAX_DEFINITION_LINE_CHARS = 500;
export const DEFINITION_BUDGET_MS = 2_000;

/** Said with every answer, found or not: what a textual search cannot see. */
export const SYMBOL_LIMITS =
  "[symbol is textual: it matches the name on word boundaries and tells a definition by how " +
  "its line reads. It does not resolve imports under another name (aliases, re-exports), " +
  "dynamic dispatch (interfaces, overrides, reflection, names built at run time), or macros " +
  `and generated code. Definitions are recognised in ${
    LANGUAGES.map((language) => language.language).join(", ")
  } files; in other files every line is a reference.]`;

const schema = z.lazy(() =>
  z.object({
    name: z.string().min(1).describe(
      'The identifier, exactly as written in code, e.g. "parseConfig", "HttpClient", "MAX_SIZE". ' +
        "A literal, not a regular expression; no spaces.",
    ),
    kind: z.enum(["def", "ref", "any"]).optional().describe(
      'What to find: "def" (definitions), "ref" (uses, definitions left out) or "any" (both; default).',
    ),
    path: z.string().optional().describe(
      "File or folder to search, relative to the workspace root (default: the workspace root).",
    ),
    glob: z.string().optional().describe(
      'Only search files matching this glob, e.g. "*.go", "src/**/*.py".',
    ),
  })
);

type SymbolInput = z.infer<typeof schema>;

interface SymbolLine {
  relative: string;
  line: number;
  text: string;
}

/** The name with `\b` on each side that is a word character, in the engine's dialect. */
export function symbolPattern(name: string, dialect: "ripgrep" | "javascript"): string {
  const boundary = dialect === "ripgrep" ? "(?-u:\\b)" : "\\b";
  const escaped = name.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&");
  return (/^\w/.test(name) ? boundary : "") + escaped + (/\w$/.test(name) ? boundary : "");
}

function refuseBadName(name: string): void {
  if (/\s/.test(name)) {
    throw new ToolError(
      "bad_input",
      `The name ${JSON.stringify(name)} holds whitespace; symbol looks up one identifier.`,
      "Give a single identifier such as parseConfig; use grep to search for a phrase.",
    );
  }
}

/** Sorts lines into definitions and references as the engines hand files over. */
class SymbolCollector extends GrepCollector {
  definitions: SymbolLine[] = [];
  references: SymbolLine[] = [];
  /** Lines left as references without a definition test: too long, or past the budget. */
  unjudged = 0;
  #compiled = new Map<LanguagePatterns, RegExp[]>();
  #spentMs = 0;

  constructor(private readonly name: string, private readonly rootName: string) {
    super();
  }

  #definitionPatterns(relative: string): RegExp[] {
    const language = languageOf(path.posix.basename(relative || this.rootName));
    if (!language) return [];
    let compiled = this.#compiled.get(language);
    if (!compiled) {
      const name = symbolPattern(this.name, "javascript");
      compiled = language.definitions.map((template) =>
        new RegExp(template.replaceAll("NAME", () => name), "u")
      );
      this.#compiled.set(language, compiled);
    }
    return compiled;
  }

  #isDefinition(patterns: RegExp[], text: string): boolean {
    if (patterns.length === 0) return false;
    if (text.length > MAX_DEFINITION_LINE_CHARS || this.#spentMs > DEFINITION_BUDGET_MS) {
      this.unjudged++;
      return false;
    }
    const start = performance.now();
    try {
      return patterns.some((pattern) => pattern.test(text));
    } finally {
      this.#spentMs += performance.now() - start;
    }
  }

  override add(file: FileHits): void {
    const patterns = this.#definitionPatterns(file.relative);
    for (const hit of file.lines) {
      if (!hit.match) continue;
      const text = hit.text.endsWith("\r") ? hit.text.slice(0, -1) : hit.text;
      const entry = { relative: file.relative, line: hit.line, text };
      if (this.#isDefinition(patterns, text)) this.definitions.push(entry);
      else this.references.push(entry);
    }
  }
}

function byPathThenLine(a: SymbolLine, b: SymbolLine): number {
  if (a.relative !== b.relative) return a.relative < b.relative ? -1 : 1;
  return a.line - b.line;
}

function section(
  heading: string,
  lines: SymbolLine[],
  limit: number,
  display: (relative: string) => string,
): string {
  const shown = lines.slice(0, limit).map((entry) => {
    const text = entry.text.trim();
    const clamped = text.length > MAX_LINE_CHARS
      ? `${text.slice(0, MAX_LINE_CHARS)}… [line cut]`
      : text;
    return `${display(entry.relative)}:${entry.line}: ${clamped}`;
  });
  const more = lines.length > limit
    ? `\n[Showing the first ${limit} of ${lines.length}, in path order. Narrow with path or glob.]`
    : "";
  return `${heading} (${lines.length}):\n${shown.join("\n")}${more}`;
}

export function createSymbolTool(options: { engine?: GrepEngine } = {}): Tool<SymbolInput> {
  return defineTool({
    name: "symbol",
    description: [
      "Find where an identifier is defined and where it is used, across TypeScript/JavaScript, Python, Go, Rust, Java/Kotlin, C/C++, Ruby and shell files.",
      "- `name` is a literal identifier (not a regular expression); matched on word boundaries.",
      '- `kind`: "def" for definitions, "ref" for uses, "any" (default) for both, definitions first, as `path:line: text`.',
      "- Textual: it does not follow imports under another name or dynamic dispatch; the result says so. Same ignore and read rules as grep.",
    ].join("\n"),
    schema,
    declare(input, ctx) {
      refuseBadName(input.name);
      const root = resolveSearchRoot(ctx, input.path);
      // Judged as the search it is: grep's key, grep's rules.
      return searchAccess("grep", root, `symbol ${input.name} in ${root.display}`);
    },
    async execute(input, ctx) {
      await loadSearchLibraries(); // ignore and picomatch: evaluated at the first search
      refuseBadName(input.name);
      const kind = input.kind ?? "any";
      const root = resolveSearchRoot(ctx, input.path);
      const info = await statRoot(root, input.path);
      const prefix = info.isDirectory && root.relative && root.relative !== "."
        ? `${root.relative}/`
        : "";
      const include = input.glob ? compileGlob(input.glob, prefix) : undefined;
      const display = (relative: string) => displayUnder(root, relative);
      const collector = new SymbolCollector(input.name, path.basename(root.real));
      const kept = await keptBackFiles(
        ctx,
        { real: root.real, isFile: info.isFile },
        include,
        display,
      );
      collector.add = withoutKeptBack(kept, collector.add.bind(collector));
      const query = (dialect: "ripgrep" | "javascript"): GrepQuery => ({
        pattern: symbolPattern(input.name, dialect),
        root: root.real,
        rootIsFile: info.isFile,
        include,
        context: 0,
        signal: ctx.signal,
      });
      let engine: "ripgrep" | "fallback" = "fallback";
      const choice = chooseEngine(options.engine ?? "auto");
      if (
        choice.kind === "ripgrep" &&
        await searchWithRipgrep(choice.rg, query("ripgrep"), collector, input.glob)
      ) {
        engine = "ripgrep";
      }
      if (engine === "fallback") await searchWithFallback(query("javascript"), collector);

      const definitions = collector.definitions.sort(byPathThenLine);
      const references = collector.references.sort(byPathThenLine);
      const parts: string[] = [];
      if (kind !== "ref") {
        parts.push(section(
          `Definitions of ${input.name}`,
          definitions,
          SYMBOL_DEFINITION_LIMIT,
          display,
        ));
      }
      if (kind !== "def") {
        parts.push(section(
          `References to ${input.name}`,
          references,
          SYMBOL_REFERENCE_LIMIT,
          display,
        ));
      }
      const found = (kind !== "ref" ? definitions.length : 0) +
        (kind !== "def" ? references.length : 0);
      const where = `"${root.display}"${input.glob ? ` (files matching ${input.glob})` : ""}`;
      const body = found
        ? parts.join("\n\n")
        : `No ${
          kind === "def" ? "definition of" : kind === "ref" ? "reference to" : "line naming"
        } ${input.name} in ${where}.`;
      const unjudged = collector.unjudged
        ? `\n[${collector.unjudged} line(s) were listed as references without a definition test: ` +
          `longer than ${MAX_DEFINITION_LINE_CHARS} characters, or past the ${DEFINITION_BUDGET_MS} ms ` +
          "the tests may take. Open them with read, or narrow the search with path or glob.]"
        : "";
      return {
        output: `${body}\n\n${SYMBOL_LIMITS}${unjudged}${keptBackNote(kept)}`,
        title: `${input.name} (${definitions.length} def, ${references.length} ref)`,
        metadata: {
          definitions: definitions.length,
          references: references.length,
          engine,
        },
      };
    },
  });
}

function compileGlob(glob: string, rootPrefix: string): (relative: string) => boolean {
  try {
    const matches = globMatcher(glob);
    if (!rootPrefix || !glob.includes("/")) return matches;
    return (relative) => matches(relative) || matches(rootPrefix + relative);
  } catch (error) {
    throw new ToolError(
      "invalid_pattern",
      `Invalid glob "${glob}": ${(error as Error).message}`,
      'Use a file glob such as "*.go" or "src/**/*.py".',
    );
  }
}

export const symbolTool = createSymbolTool();
