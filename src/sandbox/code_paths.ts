/**
 * Files that run code on the user's machine later, outside any sandbox:
 * editor tasks and launch configurations, direnv's `.envrc`, other agents'
 * settings (hooks, MCP servers, plugins), CI workflows, git hook managers,
 * dev containers, and skiff's own config. The file tools ask before writing
 * one (an allow rule naming the path approves it); a command that creates or
 * changes one has its change reverted by the command guard.
 *
 * A pattern is a path relative to the workspace, any `--add-dir` or a folder
 * below them (so `sub/.envrc` counts too, but not inside `node_modules`):
 * `*` matches within one name, a final `**` everything below. The guard finds
 * candidates by their first name while it searches for repositories, without
 * a second walk: in config `sandbox.protect` that name is literal; a few
 * built-in ones (`*.code-workspace`) hold a `*`, tested by prefix and suffix.
 */
import { dirEntriesOrNone, type Listings, presenceOf } from "./dir_entries.ts";

/** The built-in list; docs/security.md and docs/config.md show it. */
export const CODE_PATHS: readonly string[] = [
  // Editors: tasks, launch configurations and settings (interpreters, shells) run commands.
  ".vscode/tasks.json",
  ".vscode/launch.json",
  ".vscode/settings.json",
  // VS Code starts the MCP servers it names; a workspace file holds tasks, launch and settings.
  ".vscode/mcp.json",
  "*.code-workspace",
  // direnv runs it on `cd`.
  ".envrc",
  // Agents' settings: hooks, MCP servers and plugins start programs.
  ".claude/settings.json",
  ".claude/settings.local.json",
  ".claude/hooks/**",
  ".claude/agents/**",
  // Custom commands switch the agent and model of the prompt they send (src/definitions/commands.ts).
  ".claude/commands/**",
  "opencode.json",
  "opencode.jsonc",
  ".opencode/**",
  ".cursor/mcp.json",
  ".gemini/settings.json",
  "skiff.json",
  ".skiff/**",
  ".mcp.json",
  // CI runs with the repository's secrets.
  ".github/workflows/**",
  ".github/actions/**",
  ".gitlab-ci.yml",
  ".circleci/**",
  ".buildkite/**",
  ".travis.yml",
  "azure-pipelines.yml",
  "bitbucket-pipelines.yml",
  "Jenkinsfile",
  // git hook managers install what these name.
  ".husky/**",
  ".pre-commit-config.yaml",
  "lefthook.yml",
  ".lefthook.yml",
  // Editors build and run dev containers.
  ".devcontainer/**",
  ".devcontainer.json",
  // mise runs a config's hooks, `_.source` scripts and tasks when you enter the folder.
  "mise.toml",
  "mise.*.toml",
  ".mise.toml",
  ".mise.*.toml",
  "mise/config.toml",
  ".mise/config.toml",
  ".config/mise.toml",
  ".config/mise/**",
  // Package managers: `node-options` and `script-shell` in .npmrc, yarn's `yarnPath`, a pnpmfile.
  ".npmrc",
  ".yarnrc",
  ".yarnrc.yml",
  ".pnpmfile.cjs",
];

/** Why a pattern cannot be used, or null when it can. */
export function codePathProblem(pattern: string): string | null {
  const parts = pattern.split("/");
  if (pattern.startsWith("/") || parts.includes("..") || parts.includes("")) {
    return `"${pattern}" must be a relative path inside the workspace, such as "Makefile" or "scripts/**"`;
  }
  if (/[*?]/.test(parts[0])) {
    return `"${pattern}" must start with a plain name (no * or ?), such as "scripts/*.sh"`;
  }
  if (parts.slice(0, -1).includes("**")) {
    return `"${pattern}": ** may only stand last, such as "deploy/**"`;
  }
  return null;
}

/** The built-in patterns plus valid configured ones. */
export function codePathPatterns(extra: readonly string[] = []): string[] {
  return [...new Set([...CODE_PATHS, ...extra.filter((pattern) => !codePathProblem(pattern))])];
}

/** Which names the repository search collects (`has`, as a Set of names offers it). */
export interface NameFilter {
  has(name: string): boolean;
}

/**
 * The first names of `patterns`, which the repository search collects. It
 * asks about every entry of the tree twice per command, so a name with a `*`
 * (`*.code-workspace`, `mise.*.toml`) is a prefix and suffix test, not a
 * regular expression.
 */
export function codePathAnchors(patterns: readonly string[]): NameFilter {
  const literal = new Set<string>();
  const affixes: [string, string][] = [];
  for (const pattern of patterns) {
    const first = pattern.split("/")[0];
    const star = first.indexOf("*");
    if (star < 0 || first.includes("?") || first.indexOf("*", star + 1) >= 0) literal.add(first);
    else affixes.push([first.slice(0, star), first.slice(star + 1)]);
  }
  if (!affixes.length) return literal;
  return {
    has(name) {
      if (literal.has(name)) return true;
      for (const [prefix, suffix] of affixes) {
        if (
          name.endsWith(suffix) && name.startsWith(prefix) &&
          name.length >= prefix.length + suffix.length
        ) return true;
      }
      return false;
    },
  };
}

/** Whether `name` (an entry the search collected) is the first name of `pattern`. */
export function anchorMatches(pattern: string, name: string): boolean {
  return segmentMatches(pattern.split("/")[0], name);
}

function segmentMatches(pattern: string, name: string): boolean {
  if (!/[*?]/.test(pattern)) return pattern === name;
  const source = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, "[^/]*")
    .replace(/\?/g, "[^/]");
  return new RegExp(`^${source}$`).test(name);
}

/**
 * The pattern `relative` (slashes, relative to some folder) matches, or null.
 * Matched at any depth: `sub/.envrc` matches `.envrc`.
 */
export function matchingCodePath(relative: string, patterns: readonly string[]): string | null {
  const parts = relative.split("/").filter((part) => part !== "" && part !== ".");
  for (const pattern of patterns) {
    const wanted = pattern.split("/");
    for (let start = 0; start < parts.length; start++) {
      if (matchesFrom(parts.slice(start), wanted)) return pattern;
    }
  }
  return null;
}

function matchesFrom(parts: string[], wanted: string[]): boolean {
  for (let i = 0; i < wanted.length; i++) {
    if (wanted[i] === "**") return parts.length > i;
    if (i >= parts.length || !segmentMatches(wanted[i], parts[i])) return false;
  }
  // `.claude/agents/**` also covers the folder itself; a file pattern only the file.
  return parts.length === wanted.length;
}

/**
 * Existing paths under `anchor` (an entry named like the pattern's first
 * name) that `pattern` covers, with the folders passed on the way, found with
 * lstat and readdir only (no symlink is followed). At most `limit` entries.
 */
export function expandCodePath(
  anchor: string,
  pattern: string,
  limit = 2_000,
  listings: Listings = new Map(),
): string[] {
  const found: string[] = [];
  // Anchors are often missing (`config.worktree`, `commondir`): a listing of
  // their folder says so without a failed lstat each (dir_entries.ts).
  if (presenceOf(anchor, listings) === "absent") return found;
  const visit = (current: string, rest: string[]) => {
    if (found.length >= limit) return;
    let info: Deno.FileInfo;
    try {
      info = Deno.lstatSync(current);
    } catch {
      return;
    }
    found.push(current);
    if (!info.isDirectory || rest.length === 0) return;
    if (rest[0] === "**") {
      walkAll(current, found, limit);
      return;
    }
    for (const entry of dirEntriesOrNone(current)) {
      if (segmentMatches(rest[0], entry.name)) visit(`${current}/${entry.name}`, rest.slice(1));
    }
  };
  visit(anchor, pattern.split("/").slice(1));
  return found;
}

function walkAll(folder: string, found: string[], limit: number): void {
  for (const entry of dirEntriesOrNone(folder)) {
    if (found.length >= limit) return;
    const full = `${folder}/${entry.name}`;
    found.push(full);
    if (entry.isDirectory) walkAll(full, found, limit);
  }
}
