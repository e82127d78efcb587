/**
 * The top of the git repository holding a folder: the nearest folder, from
 * it upwards, with a `.git` entry (a repository's folder, or the file a
 * linked worktree or a submodule's checkout has). Nothing inside `.git` is
 * read and git is not run: a hostile repository's config cannot act here.
 */
import * as path from "./path.ts";

/** The git root at or above `start` (resolved to an absolute path), or null. Needs `--allow-read`. */
export function findGitRoot(start: string): string | null {
  for (let dir = path.resolve(start);;) {
    try {
      Deno.statSync(path.join(dir, ".git"));
      return dir;
    } catch {
      const parent = path.dirname(dir);
      if (parent === dir) return null;
      dir = parent;
    }
  }
}
