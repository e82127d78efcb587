/**
 * skiff's own POSIX path functions, so that neither the terminal side nor the engine's Worker
 * imports `node:path` or `node:url`: the first of those evaluates Deno's Node compatibility
 * internals in each isolate that loads it (docs/performance.md). skiff runs on Linux and macOS only, so there
 * is one flavour: "/" separates, nothing else does. Each function returns exactly what Node's
 * `path.posix` (and `url.fileURLToPath` on a POSIX system) returns, quirks included, for the
 * functions skiff uses; tests/lib/path_test.ts compares them with `node:path`. This
 * module imports nothing.
 *
 * @module
 */

export const sep = "/";
export const delimiter = ":";

/** Whether `path` starts at the root. */
export function isAbsolute(path: string): boolean {
  return path.startsWith("/");
}

/**
 * The segments of `path` with "." and empty ones dropped and each ".." taking away the segment
 * before it; a ".." with nothing before it is kept when `keepAboveRoot` (a relative path), and
 * dropped otherwise (an absolute one cannot go above "/").
 */
function normalizeSegments(path: string, keepAboveRoot: boolean): string[] {
  const kept: string[] = [];
  for (const segment of path.split("/")) {
    if (segment === "" || segment === ".") continue;
    if (segment !== "..") kept.push(segment);
    else if (kept.length > 0 && kept[kept.length - 1] !== "..") kept.pop();
    else if (keepAboveRoot) kept.push("..");
  }
  return kept;
}

/** `path` with "." and ".." resolved and repeated slashes made one; a trailing slash is kept. */
export function normalize(path: string): string {
  if (path === "") return ".";
  const absolute = isAbsolute(path);
  const trailingSlash = path.endsWith("/");
  const body = normalizeSegments(path, !absolute).join("/");
  if (body === "") return absolute ? "/" : trailingSlash ? "./" : ".";
  return (absolute ? "/" : "") + body + (trailingSlash ? "/" : "");
}

/** The non-empty `parts` joined with "/" and normalised; "." when there are none. */
export function join(...parts: string[]): string {
  const nonEmpty = parts.filter((part) => part !== "");
  return nonEmpty.length === 0 ? "." : normalize(nonEmpty.join("/"));
}

/**
 * The absolute path `parts` lead to, read right to left up to the first absolute one; relative
 * to the working directory when none is absolute (needs `--allow-read` then, for `Deno.cwd()`).
 * Never ends with a slash, except for "/".
 */
export function resolve(...parts: string[]): string {
  let joined = "";
  for (let index = parts.length - 1; index >= -1; index--) {
    const part = index >= 0 ? parts[index] : Deno.cwd();
    if (part === "") continue;
    joined = `${part}/${joined}`;
    if (isAbsolute(part)) break;
  }
  const absolute = isAbsolute(joined);
  const body = normalizeSegments(joined, !absolute).join("/");
  if (absolute) return `/${body}`;
  return body === "" ? "." : body;
}

/** The path from `from` to `to`, both resolved first; "" when they are the same. */
export function relative(from: string, to: string): string {
  if (from === to) return "";
  const fromSegments = normalizeSegments(resolve(from), false);
  const toSegments = normalizeSegments(resolve(to), false);
  let common = 0;
  while (
    common < fromSegments.length && common < toSegments.length &&
    fromSegments[common] === toSegments[common]
  ) common++;
  const up = fromSegments.slice(common).map(() => "..");
  return [...up, ...toSegments.slice(common)].join("/");
}

/** Index just past the last name in `path` (trailing slashes skipped), and where that name starts. */
function lastName(path: string): { start: number; end: number } {
  let end = path.length;
  while (end > 0 && path[end - 1] === "/") end--;
  return { start: end === 0 ? 0 : path.lastIndexOf("/", end - 1) + 1, end };
}

/**
 * Everything before the last name of `path`, without the slash that ends it: "." for a bare
 * name, "/" for a name at the root. Like Node, it keeps doubled slashes ("/a//b" → "/a/",
 * "//a" → "//").
 */
export function dirname(path: string): string {
  if (path === "") return ".";
  const { start } = lastName(path);
  const slash = start - 1; // the slash before the last name, -1 if there is none
  // Node looks for that slash from index 1 on, so a path that is one name under the root, or
  // only slashes, has the root as its directory.
  if (slash < 1) return isAbsolute(path) ? "/" : ".";
  if (slash === 1 && isAbsolute(path)) return "//";
  return path.slice(0, slash);
}

/**
 * The last name of `path`, trailing slashes dropped, and `suffix` taken off its end when it ends
 * with it and is not the whole name. Node's quirks kept: `basename(p, p)` is "", and when the
 * name is a proper ending of `suffix` (or there is no name) the result runs to the end of `path`,
 * trailing slashes included (`basename("/x/", "ax")` → "x/", `basename("/", "x")` → "/").
 */
export function basename(path: string, suffix?: string): string {
  const { start, end } = lastName(path);
  const name = path.slice(start, end);
  if (suffix === undefined || suffix === "" || suffix.length > path.length) return name;
  if (suffix === path) return "";
  if (name === suffix) return name;
  if (name.endsWith(suffix)) return name.slice(0, name.length - suffix.length);
  if (suffix.endsWith(name)) return path.slice(start);
  return name;
}

/** The same functions under the name Node gives them, for call sites that say `path.posix`. */
export const posix = {
  sep,
  delimiter,
  isAbsolute,
  normalize,
  join,
  resolve,
  relative,
  dirname,
  basename,
};

/**
 * The path a `file:` URL names, percent-decoded. Throws a TypeError, like Node, for a URL of
 * another scheme, one with a host other than "localhost" or empty, one whose path holds an
 * encoded "/" ("%2F"), and a malformed percent-encoding (a URIError then).
 */
export function fileURLToPath(url: URL | string): string {
  const parsed = typeof url === "string" ? new URL(url) : url;
  if (parsed.protocol !== "file:") {
    throw new TypeError(`The URL must be of scheme file: ${parsed.href}`);
  }
  if (parsed.hostname !== "") {
    throw new TypeError(`File URL host must be "localhost" or empty: ${parsed.href}`);
  }
  if (/%2f/i.test(parsed.pathname)) {
    throw new TypeError(`File URL path must not include encoded / characters: ${parsed.href}`);
  }
  return decodeURIComponent(parsed.pathname);
}
