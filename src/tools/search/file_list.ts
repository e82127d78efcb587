/**
 * The workspace's files as the search tools see them (.gitignore honoured,
 * `.git` never entered, no link followed), for the chat's `@` completion.
 * It runs no program: listing them with `git ls-files` ran a repository's
 * `core.fsmonitor` with the user's rights, outside any sandbox. Needs
 * `--allow-read` for the tree.
 */
import { loadSearchLibraries } from "./_search_libraries.ts";
import { walkTree } from "./_walk.ts";

/** At most `limit` files under `root`, relative with forward slashes, sorted. */
export async function listWorkspaceFiles(
  root: string,
  limit = 20_000,
  signal?: AbortSignal,
): Promise<string[]> {
  await loadSearchLibraries(); // the .gitignore parser
  const found: string[] = [];
  for await (const entry of walkTree(root, { signal })) {
    found.push(entry.relative);
    if (found.length >= limit) break;
  }
  return found.sort();
}
