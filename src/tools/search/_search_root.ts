/**
 * The folder (or file) glob, grep and list start from: the `path` the model
 * gave, resolved once by the sandbox's resolver, and how results under it are
 * shown (workspace-relative inside, absolute outside, as every tool shows
 * paths).
 */
import * as path from "../../lib/path.ts";
import { displayPath, isWithin, resolveWorkspacePath } from "../../sandbox/paths.ts";
import { hiddenRefusal } from "../../sandbox/hidden.ts";
import { isCredentialBearingGitFile } from "../../sandbox/git_credentials.ts";
import { inOwnSpillFolder, refuseHidden } from "../tool_paths.ts";
import type { Access, ToolContext } from "../tool.ts";
import { ToolError } from "../tool.ts";

export interface SearchRoot {
  /** Absolute path with symlinks resolved. */
  real: string;
  /** How the root is shown: "." for the workspace itself. */
  display: string;
  /** Workspace-relative root, or null outside the workspace. */
  relative: string | null;
  /** In this session's own spill folder: searched without `external_directory`. */
  ownSpill?: boolean;
}

export function resolveSearchRoot(
  ctx:
    & Pick<ToolContext, "workspace" | "extraDirs" | "hidden" | "dataDir">
    & Partial<Pick<ToolContext, "sessionId">>,
  input: string | undefined,
): SearchRoot {
  const resolved = resolveWorkspacePath(ctx.workspace, input?.trim() || ".", ctx.extraDirs);
  refuseHidden(ctx, resolved.real, displayPath(resolved));
  refuseGitFolderHoldingHidden(ctx, resolved.real, displayPath(resolved));
  return {
    real: resolved.real,
    display: displayPath(resolved),
    relative: resolved.relative,
    ownSpill: !resolved.inside && inOwnSpillFolder(ctx, resolved.real),
  };
}

/**
 * A search never enters `.git` unless it starts there: a root in a `.git`
 * folder holding a hidden file (a config holding a credential) is refused
 * whole, as the file would be.
 */
function refuseGitFolderHoldingHidden(
  ctx: Pick<ToolContext, "hidden" | "dataDir">,
  real: string,
  display: string,
): void {
  if (!real.split(path.sep).includes(".git")) return;
  const inside = (ctx.hidden ?? []).find((entry) => isWithin(real, entry));
  const config = inside ??
    (isCredentialBearingGitFile(path.join(real, "config")) ? path.join(real, "config") : undefined);
  if (config === undefined) return;
  const { reason, hint } = hiddenRefusal(display, config);
  throw new ToolError("denied", reason, hint);
}

/** The Access of a search: permission `key`, the root as pattern, the root as read. */
export function searchAccess(key: string, root: SearchRoot, preview: string): Access {
  return { key, patterns: [root.display], reads: root.ownSpill ? [] : [root.real], preview };
}

/** A path found under the root, as the model should see it. */
export function displayUnder(root: SearchRoot, relative: string): string {
  if (root.relative === null) return path.join(root.real, relative);
  if (root.relative === "." || relative === "") return relative || root.relative;
  return `${root.relative}/${relative}`;
}

/** stat of the root, or a `not_found` the model can act on. */
export async function statRoot(
  root: SearchRoot,
  asked: string | undefined,
): Promise<Deno.FileInfo> {
  try {
    return await Deno.stat(root.real);
  } catch (error) {
    if (error instanceof Deno.errors.NotFound) {
      throw new ToolError(
        "not_found",
        `"${asked ?? "."}" does not exist.`,
        "Give a path relative to the workspace root; use list or glob to see what exists.",
      );
    }
    throw error;
  }
}
