/**
 * The one tree walk behind glob, list and grep's TypeScript engine: it honours
 * .gitignore (see _gitignore.ts), never enters `.git`, and does not follow
 * symbolic links (a link could lead out of the workspace). Synchronous reads
 * are much faster than async ones for many small directories, so the walk
 * reads synchronously and yields to the event loop every few milliseconds to
 * stay cancellable. Needs `--allow-read` for the tree.
 */
import * as path from "../../lib/path.ts";
import { IgnoreStack } from "./_gitignore.ts";

export interface VisibleEntry {
  name: string;
  /** Absolute path. */
  path: string;
  isDirectory: boolean;
  /** Where a symbolic link points (only with `links`); the link is never followed. */
  linkTarget?: string;
}

export interface WalkEntry extends VisibleEntry {
  /** Path from the walk root, with forward slashes. */
  relative: string;
}

export interface WalkOptions {
  signal?: AbortSignal;
  /** Also yield folders (before their contents). @default false */
  directories?: boolean;
}

/**
 * The entries of `dir` that are not ignored, and the rules in force inside
 * it. Unreadable folders come back empty. With `links`, symbolic links come
 * too, as entries that are not folders, with their target.
 */
export function readVisible(
  dir: string,
  rules: IgnoreStack,
  links = false,
): { rules: IgnoreStack; entries: VisibleEntry[] } {
  let listing: Deno.DirEntry[];
  try {
    listing = [...Deno.readDirSync(dir)];
  } catch {
    return { rules, entries: [] };
  }
  let hasGit = false;
  let hasGitignore = false;
  for (const entry of listing) {
    if (entry.name === ".git") hasGit = true;
    else if (entry.name === ".gitignore") hasGitignore = true;
  }
  const inner = rules.enter(dir, hasGit, hasGitignore);
  const entries: VisibleEntry[] = [];
  for (const entry of listing) {
    if (entry.name === ".git" || (entry.isSymlink && !links)) continue;
    if (!entry.isFile && !entry.isDirectory && !entry.isSymlink) continue;
    const full = dir.endsWith(path.sep) ? dir + entry.name : dir + path.sep + entry.name;
    if (inner.ignores(full, entry.isDirectory)) continue;
    if (entry.isSymlink) {
      entries.push({ name: entry.name, path: full, isDirectory: false, linkTarget: linkOf(full) });
    } else entries.push({ name: entry.name, path: full, isDirectory: entry.isDirectory });
  }
  return { rules: inner, entries };
}

function linkOf(file: string): string {
  try {
    return Deno.readLinkSync(file);
  } catch {
    return "?";
  }
}

/** Every visible file under `root` (a folder), in no particular order. */
export async function* walkTree(
  root: string,
  options: WalkOptions = {},
): AsyncGenerator<WalkEntry> {
  const pending: { dir: string; relative: string; rules: IgnoreStack }[] = [
    { dir: root, relative: "", rules: IgnoreStack.above(root) },
  ];
  let lastPause = performance.now();
  let sinceCheck = 0;
  while (pending.length) {
    const { dir, relative, rules } = pending.pop()!;
    const visible = readVisible(dir, rules);
    for (const entry of visible.entries) {
      const childRelative = relative ? `${relative}/${entry.name}` : entry.name;
      if (entry.isDirectory) {
        pending.push({ dir: entry.path, relative: childRelative, rules: visible.rules });
        if (options.directories) yield { ...entry, relative: childRelative };
      } else {
        yield { ...entry, relative: childRelative };
      }
    }
    if (++sinceCheck >= 16) {
      sinceCheck = 0;
      if (performance.now() - lastPause > 20) {
        await new Promise((resolve) => setTimeout(resolve, 0));
        lastPause = performance.now();
      }
      options.signal?.throwIfAborted();
    }
  }
}
