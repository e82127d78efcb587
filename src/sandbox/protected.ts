/**
 * Paths inside the workspace that stay read-only in `workspace-write` mode:
 * git hooks and git config (writing them runs code or changes where pushes
 * go the next time the user runs git), skiff's own config, and the project
 * agent folders skiff loads (an agent file's `permission` frontmatter is a
 * rule layer: writing either would let the agent grant itself permissions).
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
