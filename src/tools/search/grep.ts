/**
 * The grep tool: lines matching a regular expression, as `file:line: text`.
 * ripgrep does the work when it is on PATH; otherwise a TypeScript engine
 * does, with the same rules and the same output, so a model (or a test)
 * cannot tell which ran. `SKIFF_GREP=fallback` forces the TypeScript engine.
 */
import * as z from "zod";
import { globMatcher } from "./_glob_match.ts";
import { formatGrep, GrepCollector, MAX_CONTEXT_LINES } from "./_grep_results.ts";
import { keptBackFiles, keptBackNote, withoutKeptBack } from "./_grep_kept_back.ts";
import { displayUnder, resolveSearchRoot, searchAccess, statRoot } from "./_search_root.ts";
import { compilePattern, type GrepQuery, searchWithFallback } from "./_grep_fallback.ts";
import { findRipgrep, searchWithRipgrep } from "./_grep_rg.ts";
import { loadSearchLibraries } from "./_search_libraries.ts";
import { defineTool, type Tool, ToolError } from "../tool.ts";

export type GrepEngine = "auto" | "ripgrep" | "fallback";

const schema = z.lazy(() =>
  z.object({
    pattern: z.string().min(1).describe(
      'Regular expression to search for, e.g. "function\\s+load", "TODO|FIXME", "^import .* from". Matched line by line; case-sensitive unless it starts with (?i).',
    ),
    path: z.string().optional().describe(
      "File or folder to search, relative to the workspace root (default: the workspace root).",
    ),
    include: z.string().optional().describe(
      'Only search files matching this glob, e.g. "*.ts", "*.{ts,tsx}", "src/**/*.py". Without "/" it matches file names at any depth.',
    ),
    context_lines: z.number().int().min(0).optional().describe(
      `Lines of context to show before and after each match (default 0, at most ${MAX_CONTEXT_LINES}).`,
    ),
  })
);

type GrepInput = z.infer<typeof schema>;

/** Which engine `auto` picks: the environment override, then ripgrep if present. */
export function chooseEngine(
  engine: GrepEngine,
): { kind: "ripgrep"; rg: string } | { kind: "fallback" } {
  let wanted = engine;
  if (wanted === "auto") {
    try {
      const forced = Deno.env.get("SKIFF_GREP");
      if (forced === "fallback" || forced === "ripgrep") wanted = forced;
    } catch {
      // No permission to read the variable: choose as if unset.
    }
  }
  if (wanted === "fallback") return { kind: "fallback" };
  const rg = findRipgrep();
  if (rg) return { kind: "ripgrep", rg };
  if (wanted === "ripgrep") {
    throw new ToolError(
      "failed",
      "ripgrep (rg) is not on PATH.",
      "Install ripgrep or unset SKIFF_GREP.",
    );
  }
  return { kind: "fallback" };
}

export function createGrepTool(options: { engine?: GrepEngine } = {}): Tool<GrepInput> {
  return defineTool({
    name: "grep",
    description: [
      "Search file contents with a regular expression. Returns matching lines as `path:line: text`, files in path order, at most 100 matching lines.",
      "- Files ignored by .gitignore, binary files and the .git folder are skipped, and so are files the read rules do not allow (.env…): the result says how many.",
      "- Narrow with `include` (a file glob) or `path`; add `context_lines` to see surrounding lines (shown as `path-line- text`).",
      "- Use glob to find files by name.",
    ].join("\n"),
    schema,
    declare(input, ctx) {
      const root = resolveSearchRoot(ctx, input.path);
      return searchAccess("grep", root, `grep /${input.pattern}/ in ${root.display}`);
    },
    async execute(input, ctx) {
      await loadSearchLibraries(); // ignore and picomatch: evaluated at the first search
      const root = resolveSearchRoot(ctx, input.path);
      const info = await statRoot(root, input.path);
      const context = Math.min(input.context_lines ?? 0, MAX_CONTEXT_LINES);
      // Include globs are relative to path; a workspace-relative one ("src/a/*.ts" in "src") works too.
      const prefix = info.isDirectory && root.relative && root.relative !== "."
        ? `${root.relative}/`
        : "";
      const include = input.include ? compileInclude(input.include, prefix) : undefined;
      const query: GrepQuery = {
        pattern: input.pattern,
        root: root.real,
        rootIsFile: info.isFile,
        include,
        context,
        signal: ctx.signal,
      };
      const collector = new GrepCollector();
      // Files the read rules keep back (.env…) are searched by neither engine's output.
      const kept = await keptBackFiles(
        ctx,
        { real: root.real, isFile: info.isFile },
        include,
        (relative) => displayUnder(root, relative),
      );
      collector.add = withoutKeptBack(kept, collector.add.bind(collector));
      const note = keptBackNote(kept);
      let engine: "ripgrep" | "fallback" = "fallback";
      const choice = chooseEngine(options.engine ?? "auto");
      if (choice.kind === "ripgrep") {
        try {
          if (await searchWithRipgrep(choice.rg, query, collector, input.include)) {
            engine = "ripgrep";
          }
        } catch (error) {
          // ripgrep's regex has no look-around or backreferences; JavaScript's has both.
          const jsReads = locator(input.pattern) !== NO_LOCATOR;
          if (!(error instanceof ToolError && error.code === "invalid_pattern" && jsReads)) {
            throw error;
          }
        }
      }
      if (engine === "fallback") await searchWithFallback(query, collector);

      const summary = collector.summary();
      const title = `/${input.pattern}/ (${summary.totalMatches} match${
        summary.totalMatches === 1 ? "" : "es"
      })`;
      const metadata = {
        matches: summary.totalMatches,
        files: summary.totalFiles,
        engine,
        truncated: false,
      };
      if (!summary.totalMatches) {
        const where = input.include ? ` (files matching ${input.include})` : "";
        return {
          output: `No matches for /${input.pattern}/ in "${root.display}"${where}.${note}`,
          title,
          metadata,
        };
      }
      const { output, shownMatches } = formatGrep(
        summary,
        context,
        (relative) => displayUnder(root, relative),
        undefined,
        locator(input.pattern),
      );
      metadata.truncated = shownMatches < summary.totalMatches;
      return { output: output + note, title, metadata };
    },
  });
}

function compileInclude(glob: string, rootPrefix: string): (relative: string) => boolean {
  try {
    const matches = globMatcher(glob);
    if (!rootPrefix || !glob.includes("/")) return matches;
    return (relative) => matches(relative) || matches(rootPrefix + relative);
  } catch (error) {
    throw new ToolError(
      "invalid_pattern",
      `Invalid include glob "${glob}": ${(error as Error).message}`,
      'Use a file glob such as "*.ts" or "src/**/*.py".',
    );
  }
}

export const grepTool = createGrepTool();

const NO_LOCATOR = () => -1;

/**
 * Where `pattern` first matches in a line, as far as JavaScript can read it;
 * NO_LOCATOR when JavaScript cannot.
 */
function locator(pattern: string): (line: string) => number {
  let regex: RegExp;
  try {
    regex = compilePattern(pattern);
  } catch {
    return NO_LOCATOR;
  }
  return (line) => line.search(regex);
}
