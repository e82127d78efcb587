/**
 * grep's ripgrep engine. ripgrep is told to apply exactly the ignore rules the
 * TypeScript walk applies (.gitignore with or without a repository, hidden
 * files included, `.git` never, no global or `.ignore` files), its plain
 * output (`path\0line:text`) is parsed as it streams, and files it calls
 * binary are dropped, as the fallback drops them. Needs `--allow-run` for rg.
 */
import * as path from "../../lib/path.ts";
import { ProgramUnavailable, spawn } from "../../lib/spawn.ts";
import type { FileHits, GrepCollector } from "./_grep_results.ts";
import type { GrepQuery } from "./_grep_fallback.ts";
import { ToolError } from "../tool.ts";

let cachedRgPath: string | null | undefined;

/**
 * Where `rg` is on PATH, or null; looked up once per process. Where the
 * folders on PATH may not be read (the engine's Worker reads only the
 * workspace) the bare name is returned, and spawning it decides.
 */
export function findRipgrep(): string | null {
  if (cachedRgPath !== undefined) return cachedRgPath;
  cachedRgPath = null;
  const name = Deno.build.os === "windows" ? "rg.exe" : "rg";
  let searchPath: string;
  try {
    searchPath = Deno.env.get("PATH") ?? "";
  } catch {
    return cachedRgPath; // No permission to read PATH: the fallback engine serves.
  }
  for (const dir of searchPath.split(path.delimiter)) {
    if (!dir) continue;
    try {
      if (Deno.statSync(path.join(dir, name)).isFile) {
        cachedRgPath = path.join(dir, name);
        return cachedRgPath;
      }
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) {
        cachedRgPath = name;
        return cachedRgPath;
      }
    }
  }
  return cachedRgPath;
}

/** ripgrep's arguments for a query; exported so the benchmark runs the same search. */
export function ripgrepArgs(query: GrepQuery, includeGlob?: string): string[] {
  const args = [
    "--no-config",
    "--null",
    "--line-number",
    "--with-filename",
    "--no-heading",
    "--color",
    "never",
    "--no-messages",
    // A CRLF line ends before its \r, so `foo$` finds `foo\r\n` (as the fallback does).
    "--crlf",
    "--hidden",
    "--no-require-git",
    "--no-ignore-global",
    "--no-ignore-dot",
    "--no-ignore-exclude",
    "--glob",
    "!.git",
  ];
  if (query.context) args.push("--context", String(query.context));
  // A bare file-name glob narrows ripgrep's work; it is still checked below,
  // so both engines decide inclusion the same way.
  if (includeGlob && /^[\w.*-]+$|^[\w.*-]*\{[\w.,-]+\}[\w.*-]*$/.test(includeGlob)) {
    args.push("--type-add", `skiffinclude:${includeGlob}`, "--type", "skiffinclude");
  }
  args.push("--regexp", query.pattern, "--", query.root);
  return args;
}

/**
 * Runs the query through ripgrep into `collector`. Answers false, having
 * collected nothing, when rg cannot be started here (not installed, or a
 * sandboxed Worker without `--allow-run=rg`), so the caller can use the
 * fallback engine.
 */
export async function searchWithRipgrep(
  rg: string,
  query: GrepQuery,
  collector: GrepCollector,
  includeGlob?: string,
): Promise<boolean> {
  let child: Deno.ChildProcess;
  try {
    // rg reads no config of its own (`--no-config`), so it keeps this process's environment.
    child = spawn(rg, { args: ripgrepArgs(query, includeGlob), signal: query.signal });
  } catch (error) {
    if (error instanceof ProgramUnavailable) return false;
    throw error;
  }
  const stderr = new Response(child.stderr).text();
  const rootPrefix = query.root.endsWith(path.sep) ? query.root : query.root + path.sep;
  const rootName = path.basename(query.root);

  let current: FileHits | null = null;
  let currentPath = "";
  const flush = () => {
    if (current && (!query.include || query.include(current.relative || rootName))) {
      collector.add(current);
    }
    current = null;
  };
  const onLine = (line: string) => {
    const nul = line.indexOf("\0");
    if (nul === -1) {
      // "path: WARNING: stopped searching binary file after match": drop it.
      if (current && line.startsWith(`${currentPath}: WARNING: `)) current = null;
      return;
    }
    const file = line.slice(0, nul);
    const parsed = /^(\d+)([:-])/.exec(line.slice(nul + 1, nul + 22));
    if (!parsed) return;
    if (file !== currentPath || !current) {
      flush();
      currentPath = file;
      const relative = file === query.root
        ? ""
        : file.startsWith(rootPrefix)
        ? file.slice(rootPrefix.length)
        : file;
      current = { relative: relative.split(path.sep).join("/"), lines: [] };
    }
    current!.lines.push({
      line: Number(parsed[1]),
      text: line.slice(nul + 1 + parsed[0].length),
      match: parsed[2] === ":",
    });
  };

  let buffered = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    buffered += decoder.decode(chunk, { stream: true });
    let start = 0;
    for (let end = buffered.indexOf("\n"); end !== -1; end = buffered.indexOf("\n", start)) {
      onLine(buffered.slice(start, end));
      start = end + 1;
    }
    buffered = buffered.slice(start);
  }
  buffered += decoder.decode();
  if (buffered) onLine(buffered);
  flush();

  const status = await child.status;
  const errors = await stderr;
  if (status.code === 2 && /regex|parse error|error parsing/i.test(errors)) {
    throw new ToolError(
      "invalid_pattern",
      // Its advice to pass --pcre2 is not something the model can do.
      `Invalid regular expression "${query.pattern}": ${
        errors.replace(/\s*Consider enabling PCRE2[\s\S]*$/, "").trim()
      }`,
      "Escape special characters such as ( [ { . * + ? with a backslash, or search for a simpler literal.",
    );
  }
  query.signal?.throwIfAborted();
  return true;
}
