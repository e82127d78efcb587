/**
 * The glob tool: files whose path matches a pattern, newest first, with
 * .gitignore honoured and `.git/` never listed. The walk starts at the
 * pattern's fixed prefix (`src/**` walks only `src`), so a narrow pattern in a
 * big tree stays cheap.
 */
import * as path from "../../lib/path.ts";
import * as z from "zod";
import { globMatcher } from "./_glob_match.ts";
import { loadSearchLibraries, searchLibraries } from "./_search_libraries.ts";
import { walkTree } from "./_walk.ts";
import { displayUnder, resolveSearchRoot, searchAccess, statRoot } from "./_search_root.ts";
import { defineTool, ToolError } from "../tool.ts";

export const GLOB_LIMIT = 100;

const schema = z.lazy(() =>
  z.object({
    pattern: z.string().min(1).describe(
      'Glob pattern, e.g. "**/*.ts", "src/**/test_*.py", "*.{json,yaml}". A pattern without "/" matches file names at any depth.',
    ),
    path: z.string().optional().describe(
      "Folder to search in, relative to the workspace root (default: the workspace root).",
    ),
  })
);

export const globTool = defineTool({
  name: "glob",
  description: [
    "Find files by name pattern. Returns matching file paths, most recently modified first, at most 100.",
    "- Files ignored by .gitignore and the .git folder are skipped.",
    "- Use grep to search file contents, list to see a folder's layout.",
  ].join("\n"),
  schema,
  declare(input, ctx) {
    const root = resolveSearchRoot(ctx, input.path);
    return searchAccess("glob", root, `glob ${input.pattern} in ${root.display}`);
  },
  async execute(input, ctx) {
    await loadSearchLibraries(); // ignore and picomatch: evaluated at the first search
    const root = resolveSearchRoot(ctx, input.path);
    const info = await statRoot(root, input.path);
    if (!info.isDirectory) {
      throw new ToolError(
        "bad_input",
        `path "${input.path}" is a file, not a folder.`,
        "Give the folder to search in, or read the file directly.",
      );
    }
    let pattern = relativePattern(input.pattern, root.real);
    let found = await findFiles(pattern, root.real, input.pattern, ctx.signal);
    // A workspace-relative pattern with a path ("src/a/*.ts" in "src") means the same files.
    const rootPrefix = root.relative && root.relative !== "." ? `${root.relative}/` : "";
    let note = "";
    if (!found.length && rootPrefix && pattern.startsWith(rootPrefix)) {
      pattern = pattern.slice(rootPrefix.length);
      found = await findFiles(pattern, root.real, input.pattern, ctx.signal);
      if (found.length) {
        note = `\n(Read as "${pattern}" inside "${root.display}": patterns are relative to path.)`;
      }
    }

    const shown = found.slice(0, GLOB_LIMIT).map((file) => displayUnder(root, file.relative));
    const metadata = { count: found.length, truncated: found.length > GLOB_LIMIT };
    const title = `${input.pattern} (${found.length} file${found.length === 1 ? "" : "s"})`;
    if (!found.length) {
      return { output: `No files match "${input.pattern}" in "${root.display}".`, title, metadata };
    }
    const more = found.length > GLOB_LIMIT
      ? `\n… ${
        found.length - GLOB_LIMIT
      } more files match; narrow the pattern or the path to see them.`
      : "";
    return { output: shown.join("\n") + more + note, title, metadata };
  },
});

/** Files under `root` matching `pattern`, newest first. */
async function findFiles(
  pattern: string,
  root: string,
  original: string,
  signal: AbortSignal,
): Promise<{ relative: string; mtime: number }[]> {
  let matches: (relative: string) => boolean;
  try {
    matches = globMatcher(pattern);
  } catch (error) {
    throw new ToolError(
      "invalid_pattern",
      `Invalid glob pattern "${original}": ${(error as Error).message}`,
      'Use *, ** and {a,b}, e.g. "src/**/*.ts".',
    );
  }
  const start = walkStart(pattern, root);
  const found: { relative: string; mtime: number }[] = [];
  for await (const entry of walkTree(start.dir, { signal })) {
    const relative = start.prefix + entry.relative;
    if (!matches(relative)) continue;
    found.push({ relative, mtime: mtimeOf(entry.path) });
  }
  found.sort((a, b) => b.mtime - a.mtime || (a.relative < b.relative ? -1 : 1));
  return found;
}

/** `./x` and an absolute pattern under the root become root-relative. */
function relativePattern(pattern: string, root: string): string {
  if (pattern.startsWith("./")) return pattern.slice(2);
  const prefix = root.endsWith("/") ? root : `${root}/`;
  return pattern.startsWith(prefix) ? pattern.slice(prefix.length) : pattern;
}

/** The folder the pattern's fixed prefix names, when it exists. */
function walkStart(pattern: string, root: string): { dir: string; prefix: string } {
  if (!pattern.includes("/")) return { dir: root, prefix: "" };
  const scan = searchLibraries().picomatch.scan(pattern);
  if (scan.negated || scan.prefix) return { dir: root, prefix: "" };
  const base = scan.isGlob ? scan.base : path.posix.dirname(scan.base);
  if (!base || base === "." || base.split("/").includes("..")) return { dir: root, prefix: "" };
  const dir = path.join(root, base);
  try {
    if (!Deno.lstatSync(dir).isDirectory) return { dir: root, prefix: "" };
  } catch {
    return { dir: root, prefix: "" };
  }
  return { dir, prefix: `${base}/` };
}

function mtimeOf(file: string): number {
  try {
    return Deno.statSync(file).mtime?.getTime() ?? 0;
  } catch {
    return 0;
  }
}
