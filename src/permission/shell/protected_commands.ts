/**
 * Commands that could change what git or skiff will run later, outside any
 * sandbox: anything naming a path inside `.git` (hooks, config, and files
 * such as `.git/commondir` that redirect git to another config and hooks),
 * skiff's own config, the folders holding project agents (`.claude`,
 * `.opencode`: an agent file carries permission rules), `.mcp.json` (its
 * servers start unsandboxed), and the git subcommands that write repository
 * configuration or create new repositories. The OS sandbox protects these
 * paths only when they already exist, so such a command is never approved
 * silently: an allow rule becomes an ask. A heuristic on the command's text,
 * not a guarantee (docs/security.md).
 */
import { shellWords } from "./bash_split.ts";
import { gitInvocation } from "./git_code_rules.ts";

const NAMES_PROTECTED_PATH =
  /(?:^|[\s"'=:\/<>])\.(?:git|claude|opencode)(?:[\/\s"';]|$)|skiff\.json|\.mcp\.json|\.skiff(?:[\/\s"']|$)/;

/** Subcommands that write git config or create a repository with its own hooks. */
const GIT_CONFIG_WRITERS = new Set(["init", "config", "submodule", "worktree"]);

/** Why this simple command needs a person's approval, or null when it does not. */
export function protectedCommandReason(piece: string): string | null {
  if (NAMES_PROTECTED_PATH.test(piece)) {
    return "it names a path inside .git, skiff's config, a project agent folder or .mcp.json, which commands may not change";
  }
  const subcommand = gitInvocation(shellWords(piece))?.subcommand;
  if (subcommand && GIT_CONFIG_WRITERS.has(subcommand)) {
    return `\`git ${subcommand}\` can write git configuration that later runs code outside the sandbox`;
  }
  return null;
}
