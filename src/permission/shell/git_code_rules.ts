/**
 * Git commands that run programs of the caller's choosing, so a rule meant
 * for git (`git *`, `git log *`) does not approve them: config given on the
 * command line (`git -c core.fsmonitor=… status`, `--config-env`), another
 * exec path or git folder (`--exec-path=.`, `--git-dir=planted`), an alias
 * (a first word git does not know: aliases starting with `!` are shell
 * commands), and options that name a program (`grep -O`, `rebase -x`,
 * `fetch --upload-pack`, `diff --ext-diff`). Such a command is approved only
 * by a rule that names that very form (`git -c *`, `git co *`).
 */
import { shellWords } from "./bash_split.ts";

/** git's global options that take the next word as their value. */
export const GIT_OPTIONS_WITH_VALUE: ReadonlySet<string> = new Set([
  "-C",
  "-c",
  "--git-dir",
  "--work-tree",
  "--namespace",
  "--config-env",
  "--super-prefix",
]);

/** Global options that make git load config, programs or hooks chosen on the command line. */
const CODE_OPTION = /^(?:-c|--config-env|--exec-path|--git-dir)(?:=|$)|^-c./;

/** Options of one subcommand that run a program they name. */
const SUBCOMMAND_CODE_OPTIONS: Record<string, RegExp> = {
  grep: /^(?:-O|--open-files-in-pager)/,
  rebase: /^(?:-x|--exec)/,
  difftool: /^(?:-x|--extcmd|-t|--tool)/,
  mergetool: /^(?:-t|--tool)/,
  fetch: /^--upload-pack/,
  pull: /^--upload-pack/,
  clone: /^(?:-u|--upload-pack|--template)/,
  "ls-remote": /^--upload-pack/,
  push: /^(?:--receive-pack|--exec)/,
  archive: /^--exec/,
  diff: /^--ext-diff/,
  log: /^--ext-diff/,
  show: /^--ext-diff/,
  bisect: /^run$/,
};

/** git's own commands (`git --list-cmds=main`); any other first word is an alias or a plug-in. */
const GIT_COMMANDS = new Set(`add am annotate apply archive backfill bisect blame branch bugreport
  bundle cat-file check-attr check-ignore check-mailmap check-ref-format checkout checkout-index
  cherry cherry-pick citool clean clone column commit commit-graph commit-tree config count-objects
  credential credential-cache credential-store daemon describe diagnose diff diff-files diff-index
  diff-tree difftool fast-export fast-import fetch fetch-pack filter-branch fmt-merge-msg
  for-each-ref for-each-repo format-patch fsck fsck-objects gc get-tar-commit-id gitk grep gui
  hash-object help hook http-backend http-fetch http-push imap-send index-pack init init-db
  instaweb interpret-trailers last-modified log ls-files ls-remote ls-tree mailinfo mailsplit
  maintenance merge merge-base merge-file merge-index merge-one-file merge-tree mergetool mktag
  mktree multi-pack-index mv name-rev notes p4 pack-objects pack-redundant pack-refs patch-id prune
  prune-packed pull push quiltimport range-diff read-tree rebase receive-pack reflog refs remote
  repack replace replay repo request-pull rerere reset restore rev-list rev-parse revert rm
  send-email send-pack shortlog show show-branch show-index show-ref sparse-checkout stage stash
  status stripspace submodule subtree svn switch symbolic-ref tag unpack-file unpack-objects
  update-index update-ref update-server-info upload-archive upload-pack var verify-commit
  verify-pack verify-tag version whatchanged worktree write-tree`.split(/\s+/));

export interface GitInvocation {
  /** The words before the subcommand (`-C`, `-c name=value`, …). */
  globalOptions: string[];
  subcommand: string | null;
  /** The words after the subcommand. */
  rest: string[];
}

/** How a command's words call git, or null when the program is not git. */
export function gitInvocation(words: string[]): GitInvocation | null {
  if (words[0]?.split("/").pop() !== "git") return null;
  const globalOptions: string[] = [];
  for (let i = 1; i < words.length; i++) {
    const word = words[i];
    if (GIT_OPTIONS_WITH_VALUE.has(word)) {
      globalOptions.push(word, words[i + 1] ?? "");
      i++;
    } else if (word.startsWith("-")) globalOptions.push(word);
    else return { globalOptions, subcommand: word, rest: words.slice(i + 1) };
  }
  return { globalOptions, subcommand: null, rest: [] };
}

/** True when `pattern` spells out this form: one of its words is the option or the alias. */
function patternNames(pattern: string, form: string | RegExp): boolean {
  const words = pattern.trim().split(/\s+/);
  if (typeof form === "string") return words[1] === form;
  return words.some((word) => form.test(word));
}

/**
 * Why an allow rule for git must not approve `piece`, or null when it may.
 * Only a rule whose pattern starts with git counts here: `*` approves every
 * program anyway, and so these forms too.
 */
export function gitCodeExecutionReason(piece: string, rulePattern: string): string | null {
  if (!/^(?:\S*\/)?git(?:\s|\*|$)/.test(rulePattern.trim())) return null;
  const git = gitInvocation(shellWords(piece));
  if (!git) return null;
  const option = git.globalOptions.find((word) => CODE_OPTION.test(word));
  if (option && !patternNames(rulePattern, CODE_OPTION)) {
    return `\`git ${option}\` makes git load config or programs named on the command line, which can run any command; it needs a rule of its own (such as \`git ${
      option.replace(/=.*/, "")
    } *\`)`;
  }
  const subcommand = git.subcommand;
  if (subcommand && !GIT_COMMANDS.has(subcommand) && !patternNames(rulePattern, subcommand)) {
    return `\`git ${subcommand}\` is not a git command but an alias or plug-in, which can run any command; it needs a rule naming it (such as \`git ${subcommand} *\`)`;
  }
  const runs = subcommand ? SUBCOMMAND_CODE_OPTIONS[subcommand] : undefined;
  const named = runs ? git.rest.find((word) => runs.test(word)) : undefined;
  if (runs && named && !patternNames(rulePattern, runs)) {
    return `\`git ${subcommand} ${named}\` runs a program it names; it needs a rule of its own`;
  }
  return null;
}
