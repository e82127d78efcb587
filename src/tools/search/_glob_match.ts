/**
 * One meaning of a file glob for glob's pattern and grep's include: picomatch
 * syntax, dotfiles included, and a pattern without "/" matches the file name
 * at any depth (`*.ts` finds `src/a/b.ts`), which is what people mean by it.
 */
import { searchLibraries } from "./_search_libraries.ts";

/** A test on a path relative to the search root; throws on a malformed glob. */
export function globMatcher(pattern: string): (relative: string) => boolean {
  const cleaned = pattern.replace(/^\.\//, "");
  const test = searchLibraries().picomatch(cleaned, { dot: true });
  if (cleaned.includes("/")) return test;
  return (relative) => test(relative.slice(relative.lastIndexOf("/") + 1));
}
