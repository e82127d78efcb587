/**
 * What the system prompt says about git's state: a one-line summary of the
 * repository. The summary runs git, which obeys the repository's own
 * config, so it runs only through the read-only sandbox launcher it is given.
 */
import { findGitRoot } from "../../lib/git_root.ts";
import { output } from "../../lib/spawn.ts";

/** Turns a shell command into the argv and environment that run it contained. */
export type ContainedCommand = (
  command: string,
  cwd: string,
) => Promise<{ argv: string[]; env: Record<string, string> }>;

/**
 * "branch main, 3 changed files" — or null outside a repository. git reads
 * the repository's own config (fsmonitor, filters) and can run commands from
 * it, so it runs through `contain` (a read-only sandbox); with none given,
 * the summary is skipped rather than run bare.
 */
export async function gitSummary(
  workspace: string,
  contain?: ContainedCommand,
): Promise<string | null> {
  if (!contain || findGitRoot(workspace) === null) return null;
  try {
    const { argv, env } = await contain(
      "git --no-optional-locks status --porcelain=v1 --branch",
      workspace,
    );
    const result = await output(argv[0], {
      args: argv.slice(1),
      cwd: workspace,
      env,
      stderr: "null",
      signal: AbortSignal.timeout(3000),
    });
    if (!result.success) return null;
    const lines = new TextDecoder().decode(result.stdout).split("\n").filter(Boolean);
    const branchLine = lines.find((line) => line.startsWith("## "));
    const branch = branchLine
      ? branchLine.slice(3).split("...")[0].replace(/^No commits yet on /, "")
      : "unknown";
    const changed = lines.filter((line) => !line.startsWith("## "));
    const untracked = changed.filter((line) => line.startsWith("??")).length;
    const modified = changed.length - untracked;
    const parts = [`branch ${branch}`];
    parts.push(modified ? `${modified} changed file(s)` : "clean");
    if (untracked) parts.push(`${untracked} untracked`);
    return parts.join(", ");
  } catch {
    return null;
  }
}
