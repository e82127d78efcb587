/**
 * What the harness memory tools share: where memory is kept (the git
 * repository, or the workspace folder outside git, each by an id of its own:
 * `memoryPlace`), the commit checked out (read from `.git`'s
 * files, so no git process runs and the repository's config runs nothing),
 * and whether an entry has gone stale because a file it names changed since
 * it was written (the file's mtime is later, or the file is gone).
 */
import * as path from "../../lib/path.ts";
import type { MemoryPlace, MemoryTable } from "../../store/memory.ts";

/** What the memory tools of one session are built with. */
export interface HarnessDeps {
  memory: MemoryTable;
  /** The folder memory's file paths are relative to: the git root, or the workspace. */
  scope: string;
  /** Where rows are kept: `scope` and the id of the repository (or folder) there. */
  place: MemoryPlace;
  sessionId: string;
  /** The commit checked out now, or null outside git. */
  commit(): string | null;
  /** "branch main at 1a2b3c4", or null when git's state cannot be read. */
  gitState(): string | null;
}

function homeFolder(): string | null {
  try {
    return Deno.env.get("HOME") ?? null;
  } catch {
    return null; // not readable here (a Worker's env allowlist)
  }
}

/**
 * The git root at or above `start`, else `start` itself. A repository whose
 * root is the home folder (or above it) counts only for the home folder
 * itself: a home kept in git (dotfiles) would otherwise make every git-less
 * folder under it share one memory.
 */
export function memoryScope(start: string): string {
  const home = homeFolder();
  for (let dir = start;;) {
    try {
      Deno.statSync(path.join(dir, ".git"));
      const holdsHome = home !== null &&
        (home === dir || home.startsWith(`${dir}/`) || dir === "/");
      return holdsHome && dir !== start ? start : dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return start;
      dir = parent;
    }
  }
}

/**
 * Where memory of `start` is kept: its scope (memoryScope) and the id of the
 * repository there — its git folder's device, inode and creation time, read
 * with one stat, no git — or, outside git, of the workspace folder itself.
 * A repository cloned again to the same path gets a new git folder, so a new
 * id: what an earlier checkout there remembered is not shown to it. Copies
 * and re-clones start afresh; a repository moved within its filesystem keeps
 * its id and its memory.
 */
export function memoryPlace(start: string): MemoryPlace {
  const root = memoryScope(start);
  const folder = root === start && !hasGit(root) ? null : gitDir(root);
  const target = folder ?? root;
  try {
    const info = Deno.statSync(target);
    const born = info.birthtime?.getTime() ?? null;
    const kind = folder ? "git" : "dir";
    return { root, repository: `${kind}:${info.dev}:${info.ino}:${born ?? "-"}`, bornAt: born };
  } catch {
    return { root, repository: `path:${root}`, bornAt: null };
  }
}

function hasGit(dir: string): boolean {
  try {
    Deno.statSync(path.join(dir, ".git"));
    return true;
  } catch {
    return false;
  }
}

function readText(file: string): string | null {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return null;
  }
}

/** The git directory of `root` (a worktree's `.git` is a file naming it). */
function gitDir(root: string): string | null {
  const dotGit = path.join(root, ".git");
  try {
    if (Deno.statSync(dotGit).isDirectory) return dotGit;
  } catch {
    return null;
  }
  const pointer = /^gitdir:\s*(.+)$/m.exec(readText(dotGit) ?? "");
  return pointer ? path.resolve(root, pointer[1].trim()) : null;
}

/** The branch (null when detached) and commit checked out in `root`. */
export function readHead(root: string): { branch: string | null; commit: string | null } | null {
  const dir = gitDir(root);
  if (!dir) return null;
  const head = readText(path.join(dir, "HEAD"))?.trim();
  if (!head) return null;
  const ref = /^ref:\s*(.+)$/.exec(head)?.[1];
  if (!ref) return { branch: null, commit: /^[0-9a-f]{40,64}$/.test(head) ? head : null };
  const branch = ref.replace(/^refs\/heads\//, "");
  // A worktree keeps its refs in the common folder.
  const common = readText(path.join(dir, "commondir"))?.trim();
  const dirs = common ? [dir, path.resolve(dir, common)] : [dir];
  for (const base of dirs) {
    const loose = readText(path.join(base, ref))?.trim();
    if (loose) return { branch, commit: loose };
    const packed = readText(path.join(base, "packed-refs")) ?? "";
    for (const line of packed.split("\n")) {
      const [sha, name] = line.trim().split(" ");
      if (name === ref) return { branch, commit: sha };
    }
  }
  return { branch, commit: null };
}

/** Deps for a session in `workspace`, reading git's files when asked. */
export function harnessDeps(
  memory: MemoryTable,
  workspace: string,
  sessionId: string,
): HarnessDeps {
  const place = memoryPlace(workspace);
  const scope = place.root;
  return {
    memory,
    scope,
    place,
    sessionId,
    commit: () => readHead(scope)?.commit ?? null,
    gitState: () => {
      const head = readHead(scope);
      if (!head) return null;
      const at = head.commit ? ` at ${head.commit.slice(0, 12)}` : " (no commit yet)";
      return head.branch ? `branch ${head.branch}${at}` : `detached${at}`;
    },
  };
}

/**
 * The files of `files` (scope-relative) changed since `since` (ms): modified
 * later, or gone. A path that leaves the scope is ignored, not followed.
 */
export function changedSince(scope: string, files: string[], since: number): string[] {
  const changed: string[] = [];
  for (const file of files) {
    const full = path.resolve(scope, file);
    if (path.relative(scope, full).startsWith("..")) continue;
    try {
      const mtime = Deno.statSync(full).mtime?.getTime();
      if (mtime !== undefined && mtime > since) changed.push(file);
    } catch {
      changed.push(file);
    }
  }
  return changed;
}

/** A path as the memory stores it: relative to the scope when inside it. */
export function scopePath(scope: string, workspace: string, file: string): string {
  const full = path.resolve(workspace, file);
  const relative = path.relative(scope, full);
  return relative.startsWith("..") || path.isAbsolute(relative) ? full : relative;
}
