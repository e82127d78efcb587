/**
 * The one path resolver. Every tool and every rule goes through it: `~` is
 * expanded, relative paths are anchored at the workspace, `..` normalised, and
 * symlinks resolved with realpath before any containment check — a link inside
 * the workspace that points outside is outside, even when its target does not
 * exist yet. On a case-insensitive filesystem containment ignores case.
 */
import * as path from "../lib/path.ts";
import { type Listings, presenceOf } from "./dir_entries.ts";

export interface ResolvedPath {
  /** Absolute, normalised path as asked for (before symlinks). */
  requested: string;
  /** Absolute path with every existing symlink resolved. */
  real: string;
  /** `real` relative to the workspace, with forward slashes; null when outside. */
  relative: string | null;
  /** True when `real` lies inside the workspace or an extra folder. */
  inside: boolean;
}

export function homeDir(): string {
  return Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/";
}

export function expandHome(input: string): string {
  if (input === "~") return homeDir();
  if (input.startsWith("~/") || input.startsWith("~\\")) {
    return path.join(homeDir(), input.slice(2));
  }
  return input;
}

const MAX_LINK_HOPS = 40;

function readLinkOrNull(candidate: string): string | null {
  try {
    if (!Deno.lstatSync(candidate).isSymlink) return null;
    return Deno.readLinkSync(candidate);
  } catch {
    return null;
  }
}

/**
 * realpath of the longest existing prefix, with the missing rest appended:
 * a file about to be created resolves through its real parent. A dangling
 * symlink is followed to where it points, so creating "through" it is judged
 * by its target, not by the link's own name. A path this process may not
 * read (a Worker's NotCapable) comes back unresolved; the Deno layer then
 * refuses the access itself.
 *
 * `listings`: for a caller resolving many mostly missing paths (the hidden
 * list), the folder listings kept for its loop: a name its folder's listing
 * proves absent is neither a file nor a link, so it is passed over without
 * the two failing calls (each a thrown error: docs/performance.md).
 */
export function realpathLenient(absolute: string, hops = 0, listings?: Listings): string {
  let current = absolute;
  const rest: string[] = [];
  for (;;) {
    // A folder listed already exists: its own parent's listing would only say so again.
    const listed = listings?.get(current);
    if (listings === undefined || listed || presenceOf(current, listings) !== "absent") {
      try {
        const real = Deno.realPathSync(current);
        return rest.length ? path.join(real, ...rest.reverse()) : real;
      } catch (error) {
        // Outside what this process may read: nothing to resolve, and the path
        // (necessarily outside the readable folders) is judged as written.
        if (error instanceof Deno.errors.NotCapable) return absolute;
        const target = hops < MAX_LINK_HOPS ? readLinkOrNull(current) : null;
        if (target !== null) {
          const followed = path.resolve(path.dirname(current), target);
          const joined = rest.length ? path.join(followed, ...[...rest].reverse()) : followed;
          return realpathLenient(joined, hops + 1, listings);
        }
      }
    }
    const parent = path.dirname(current);
    if (parent === current) return absolute;
    rest.push(path.basename(current));
    current = parent;
  }
}

const caseInsensitiveCache = new Map<string, boolean>();

/**
 * Whether the filesystem holding `dir` ignores case, found by asking for the
 * same folder with its name's case flipped. Cached per folder.
 */
export function isCaseInsensitive(dir: string): boolean {
  const cached = caseInsensitiveCache.get(dir);
  if (cached !== undefined) return cached;
  let answer = false;
  let probe = dir;
  // Find an ancestor whose name has letters, so flipping case changes it.
  while (
    probe !== path.dirname(probe) &&
    path.basename(probe).toLowerCase() === path.basename(probe).toUpperCase()
  ) {
    probe = path.dirname(probe);
  }
  const name = path.basename(probe);
  if (name) {
    const flipped = [...name].map((c) => c === c.toLowerCase() ? c.toUpperCase() : c.toLowerCase())
      .join("");
    try {
      const a = Deno.statSync(probe);
      const b = Deno.statSync(path.join(path.dirname(probe), flipped));
      answer = a.ino !== null && a.ino === b.ino && a.dev === b.dev;
    } catch {
      answer = false;
    }
  }
  caseInsensitiveCache.set(dir, answer);
  return answer;
}

export function isWithin(root: string, candidate: string): boolean {
  const fold = isCaseInsensitive(root);
  return lexicallyWithin(
    fold ? root.toLowerCase() : root,
    fold ? candidate.toLowerCase() : candidate,
  );
}

/**
 * Whether `candidate` is `root` or lies under it, by the strings alone (no
 * case folding, no filesystem). Two plain absolute POSIX paths (what the
 * resolver returns) are compared as strings; anything else goes through
 * `path.relative`, whose answer the string test gives for plain paths at a
 * fraction of the cost (a file tool's call checks dozens of hidden entries).
 */
export function lexicallyWithin(root: string, candidate: string): boolean {
  if (isPlainAbsolute(root) && isPlainAbsolute(candidate)) {
    return candidate === root || candidate.startsWith(root === "/" ? "/" : root + "/");
  }
  const relative = path.relative(root, candidate);
  return relative === "" ||
    (relative !== ".." && !relative.startsWith(".." + path.sep) && !path.isAbsolute(relative));
}

/** An absolute POSIX path `path.resolve` leaves as it is: no `.`, `..`, empty segment or trailing `/`. */
export function isPlainAbsolute(value: string): boolean {
  if (path.sep !== "/" || !value.startsWith("/")) return false;
  if (value === "/") return true;
  return !value.endsWith("/") && !value.endsWith("/.") && !value.endsWith("/..") &&
    !value.includes("//") && !value.includes("/./") && !value.includes("/../");
}

/** Workspace and extra folders whose path was its own realpath (no symlink in it) when resolved. */
const plainFolders = new Set<string>();

/**
 * The realpath of a workspace or extra folder. A folder whose path held no
 * symlink is not resolved again: a path inside it is then judged inside only
 * when its own realpath (always fresh) lies under that very path, which
 * resolving the folder again would answer the same; were the folder swapped
 * for a symlink since, nothing's realpath lies under it and every path is
 * outside: stricter, never looser (docs/security.md, "Paths").
 */
function folderRealpath(dir: string): string {
  const absolute = path.resolve(dir);
  if (plainFolders.has(absolute)) return absolute;
  const real = realpathLenient(absolute);
  if (real === absolute) plainFolders.add(absolute);
  return real;
}

export function resolveWorkspacePath(
  workspace: string,
  input: string,
  extraDirs: string[] = [],
): ResolvedPath {
  const root = folderRealpath(workspace);
  const requested = path.resolve(root, expandHome(input));
  const real = realpathLenient(requested);
  const inWorkspace = isWithin(root, real);
  const inside = inWorkspace || extraDirs.some((dir) => isWithin(folderRealpath(dir), real));
  const relative = inWorkspace ? relativeInside(root, real) : null;
  return { requested, real, relative, inside };
}

/**
 * Where an `owns` entry (a path one session alone may write: a subagent's,
 * a batch task's) really is, and whether that lies inside `workspace`.
 * Owns are judged by real path: a link's target is what a sandbox rooted
 * there would make writable, so a link leading out is outside.
 */
export function ownedPath(workspace: string, owned: string): { real: string; inside: boolean } {
  const resolved = resolveWorkspacePath(workspace, owned);
  return { real: resolved.real, inside: resolved.relative !== null };
}

/** `real` relative to `root`, which holds it, with forward slashes ("." for the root itself). */
function relativeInside(root: string, real: string): string {
  if (path.sep === "/" && real.startsWith(root === "/" ? "/" : root + "/")) {
    return real.slice(root === "/" ? 1 : root.length + 1) || ".";
  }
  return path.relative(root, real).split(path.sep).join("/") || ".";
}

/**
 * Resolve again just before (or just after) use and say whether the answer
 * still holds. Narrows the window in which a symlink swapped after the check
 * could redirect a file tool; it cannot close it (see docs/security.md).
 */
export function stillResolvesTo(
  resolved: ResolvedPath,
  workspace: string,
  extraDirs: string[] = [],
): boolean {
  const again = resolveWorkspacePath(workspace, resolved.requested, extraDirs);
  return again.real === resolved.real && again.inside === resolved.inside;
}

/** How a path is shown to the model and in rules: relative inside, absolute outside. */
export function displayPath(resolved: ResolvedPath): string {
  return resolved.relative ?? resolved.real;
}
