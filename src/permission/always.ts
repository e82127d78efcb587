/**
 * What an "always allow" answer stores. For a command, its program and the
 * subcommand words after it plus ` *` (`git log -n5` → `git log *`, `npm
 * run build` → `npm run build *`, `seq 1 500` → `seq *`: an argument is not
 * a subcommand), one per simple command; never `*` alone, which would
 * approve everything, and nothing for a destructive command (`rm -rf src`,
 * `git reset --hard`): approving it once is a choice about those files,
 * never about every later one. For the rest, the rules a question's checks
 * call for.
 */
import * as path from "../lib/path.ts";
import type { Access } from "../contracts/tool_call.ts";
import type { Decision } from "./decision.ts";
import { shellWords, splitCommand } from "./shell/bash_split.ts";

/** The rules an "always" answer would add, per key. */
export interface AlwaysRule {
  key: string;
  patterns: string[];
}

/** A subcommand word: a name, not a number, flag, path or value (`log`, `run`, `build:prod`). */
const SUBCOMMAND = /^[A-Za-z][A-Za-z0-9_:@+-]*$/;
const MAX_PREFIX_WORDS = 3;

/** Programs whose every use deletes or overwrites what it names. */
const DESTRUCTIVE_PROGRAMS = new Set([
  "rm",
  "rmdir",
  "unlink",
  "shred",
  "dd",
  "truncate",
  "wipefs",
  "fdisk",
  "mkfs",
]);

/** git subcommands that throw work away, with the flag that makes them do so (`""`: always). */
const DESTRUCTIVE_GIT: [string, RegExp][] = [
  ["clean", /^-/],
  ["reset", /^--hard$/],
  ["push", /^(-f|--force|--force-with-lease|--mirror|--delete|-d)$/],
  ["branch", /^(-D|--delete)$/],
  ["checkout", /^(--|-f|--force|\.)$/],
  ["restore", /./],
  ["stash", /^(drop|clear)$/],
];

/**
 * Whether a simple command's words delete or overwrite things whatever else
 * follows: no "always" is offered for it (approve it once, or write the
 * exact rule in the config).
 */
export function isDestructive(words: string[]): boolean {
  const program = words[0]?.split("/").pop() ?? "";
  if (DESTRUCTIVE_PROGRAMS.has(program) || program.startsWith("mkfs.")) return true;
  if (program === "find") return words.some((word) => word === "-delete" || word === "-exec");
  if (program === "xargs") {
    return isDestructive(words.slice(1).filter((word) => !word.startsWith("-")));
  }
  if (program !== "git") return false;
  const sub = words.findIndex((word, index) => index > 0 && !word.startsWith("-"));
  const rule = DESTRUCTIVE_GIT.find(([name]) => name === words[sub]);
  return rule !== undefined && words.slice(sub + 1).some((word) => rule[1].test(word));
}

/**
 * The pattern that approves this simple command and its variations, or
 * null when none should (a destructive command, a wildcard in its name).
 */
export function alwaysPatternFor(piece: string): string | null {
  const words = shellWords(piece);
  if (!words.length || isDestructive(words)) return null;
  const prefix = [words[0]];
  for (const word of words.slice(1, MAX_PREFIX_WORDS)) {
    if (!SUBCOMMAND.test(word)) break;
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

const SEARCH_KEYS = new Set(["glob", "grep", "list"]);

/**
 * What "always" approves outside the workspace: a searched folder and all
 * under it, or the folder holding a file. Never a top-level `/*`, which
 * would approve the whole disk.
 */
function externalPatterns(key: string, real: string): string[] {
  if (SEARCH_KEYS.has(key)) return [real, path.join(real, "*")];
  const folder = path.dirname(real);
  return folder === path.dirname(folder) ? [real] : [path.join(folder, "*")];
}

/** The rules an "always" answer adds, from the checks that asked. */
export function alwaysRulesFor(access: Access, decision: Decision): AlwaysRule[] {
  const byKey = new Map<string, Set<string>>();
  const add = (key: string, pattern: string | null) => {
    if (!pattern || (key === "bash" && pattern.trim() === "*")) return;
    if (!byKey.has(key)) byKey.set(key, new Set());
    byKey.get(key)!.add(pattern);
  };
  for (const check of decision.checks) {
    if (check.action !== "ask") continue;
    if (check.key === "bash") add("bash", alwaysPatternFor(check.subject));
    else if (check.key === "external_directory") {
      for (const pattern of externalPatterns(access.key, check.subject)) add(check.key, pattern);
    } else if (check.key === "doom_loop") add(check.key, check.subject);
    else if (check.key === access.key && access.always?.length) {
      for (const pattern of access.always) add(check.key, pattern);
    } else add(check.key, check.subject || "*");
  }
  return [...byKey].map(([key, patterns]) => ({ key, patterns: [...patterns] }));
}
