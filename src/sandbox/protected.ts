/**
 * Paths inside the workspace that stay read-only in `workspace-write` mode:
 * git hooks and git config (writing them runs code or changes where pushes
 * go the next time the user runs git), skiff's own config, the project
 * agent folders skiff loads (an agent file's `permission` frontmatter is a
 * rule layer: writing either would let the agent grant itself permissions),
 * and `.mcp.json` (its servers start outside the OS sandbox).
 */
import * as path from "node:path";
import { isWithin, realpathLenient } from "./paths.ts";

/** Workspace-relative paths that are protected, folder or file. */
export const PROTECTED_RELATIVE: readonly string[] = [
  ".git/hooks",
  ".git/config",
  "skiff.json",
  ".skiff",
  ".claude/agents",
  ".opencode/agent",
  ".opencode/agents",
  ".mcp.json",
];

/** Absolute protected paths for a workspace (existing or not), for the sandboxes to re-bind. */
export function protectedPaths(workspace: string): string[] {
  const root = realpathLenient(path.resolve(workspace));
  return PROTECTED_RELATIVE.map((relative) => path.join(root, relative));
}

/**
 * True when writing `target` (absolute, or relative to the workspace) would
 * change a protected path. Symlinks are resolved first, so a link to
 * `.git/hooks` is protected too.
 */
export function isWriteProtected(workspace: string, target: string): boolean {
  const root = realpathLenient(path.resolve(workspace));
  const real = realpathLenient(path.resolve(root, target));
  return protectedPaths(root).some((protectedPath) => isWithin(protectedPath, real));
}

/**
 * The stricter test the file tools get. A session started in a subfolder
 * loads that folder's `skiff.json`, `.skiff/`, agent folders and `.mcp.json`,
 * and a nested repository has its own `.git`; so these names are protected
 * at any depth below the workspace and each extra folder, and so is
 * everything inside any `.git` (`commondir`, submodule and worktree configs
 * redirect git as surely as `config` does). The OS sandbox can only re-bind
 * the root's existing ones (`protectedPaths`).
 */
export function isToolWriteProtected(
  workspace: string,
  target: string,
  extraDirs: string[] = [],
): boolean {
  if (isWriteProtected(workspace, target)) return true;
  const root = realpathLenient(path.resolve(workspace));
  const real = realpathLenient(path.resolve(root, target));
  for (const dir of [root, ...extraDirs.map((extra) => realpathLenient(path.resolve(extra)))]) {
    if (!isWithin(dir, real)) continue;
    const parts = path.relative(dir, real).split(path.sep);
    const last = parts.length - 1;
    const hit = parts.some((part, index) =>
      part === ".git" || part === ".skiff" ||
      (index === last && (part === "skiff.json" || part === ".mcp.json")) ||
      (part === ".claude" && parts[index + 1] === "agents") ||
      (part === ".opencode" && ["agent", "agents"].includes(parts[index + 1]))
    );
    if (hit) return true;
  }
  return false;
}
