/**
 * Which hooks a tool call meets. A matcher is written against Claude Code's
 * tool names (`Bash`, `Edit|Write`, `mcp__github__.*`) or skiff's own
 * (`bash`, `apply_patch`): a call is matched under both, so a settings file
 * copied from Claude Code and a skiff config both work. A matcher is a
 * pattern over the whole name; empty or `*` matches every tool. Pure.
 */

/** skiff's tools and the Claude Code tools each stands for. */
const CLAUDE_TOOL_NAMES: Record<string, readonly string[]> = {
  bash: ["Bash"],
  read: ["Read"],
  edit: ["Edit", "MultiEdit"],
  write: ["Write"],
  // One patch may edit, create and delete files: a hook on any of these sees it.
  apply_patch: ["Edit", "MultiEdit", "Write"],
  glob: ["Glob"],
  grep: ["Grep"],
  list: ["LS"],
  webfetch: ["WebFetch"],
  task: ["Task"],
  todowrite: ["TodoWrite"],
  skill: ["Skill"],
};

/**
 * The names a call of `tool` goes by for matchers: skiff's, then Claude
 * Code's (`mcp__server__tool` for an MCP tool, given its two parts).
 */
export function hookToolNames(tool: string, mcp?: { server: string; tool: string }): string[] {
  const claude = mcp ? [`mcp__${mcp.server}__${mcp.tool}`] : CLAUDE_TOOL_NAMES[tool] ?? [];
  return [tool, ...claude];
}

/** The Claude Code name a hook's stdin gives for `tool`: the first it stands for, else its own. */
export function claudeToolName(names: string[]): string {
  return names[1] ?? names[0];
}

/** Whether `matcher` covers a call known by `names`. An invalid pattern covers nothing. */
export function matcherCovers(matcher: string | undefined, names: string[]): boolean {
  if (matcher === undefined || matcher === "" || matcher === "*") return true;
  let pattern: RegExp;
  try {
    pattern = new RegExp(`^(?:${matcher})$`);
  } catch {
    return false;
  }
  return names.some((name) => pattern.test(name));
}
