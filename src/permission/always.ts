/**
 * What an "always allow" answer stores. For a command, its prefix of plain
 * words plus ` *` (`git log -n5` → `git log *`, `npm run build` →
 * `npm run build *`), one per simple command; never `*` alone, which would
 * approve everything.
 */
import { shellWords, splitCommand } from "./shell/bash_split.ts";

const PLAIN_WORD = /^[A-Za-z0-9_][A-Za-z0-9_:@+-]*$/;
const MAX_PREFIX_WORDS = 3;

/** The pattern that approves this simple command and its variations. */
export function alwaysPatternFor(piece: string): string | null {
  const words = shellWords(piece);
  if (!words.length) return null;
  const prefix = [words[0]];
  for (const word of words.slice(1, MAX_PREFIX_WORDS)) {
    if (!PLAIN_WORD.test(word)) break;
    prefix.push(word);
  }
  // Wildcard characters in a program name would widen the rule; escape by refusing.
  if (prefix.some((word) => /[*?]/.test(word))) return null;
  return `${prefix.join(" ")} *`;
}

/** One "always" pattern per simple command in `command`, duplicates removed. */
export function alwaysPatterns(command: string): string[] {
  const patterns = splitCommand(command)
    .map(alwaysPatternFor)
    .filter((pattern): pattern is string => pattern !== null && pattern !== "*");
  return [...new Set(patterns)];
}
