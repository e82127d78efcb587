/**
 * A symbolic link as a name of its own. The path resolver follows links,
 * which is right for reading or writing a file through one; removing a link
 * (delete, or the source of a move) must act on the link and leave the file
 * it points to alone. This finds the link behind a resolved path and says
 * where it sits, so the removal is declared and judged there.
 */
import * as path from "../../lib/path.ts";
import { resolveWorkspacePath } from "../../sandbox/paths.ts";
import type { ToolContext } from "../tool.ts";
import type { ToolPath } from "../tool_paths.ts";

export interface SymlinkAt {
  /** The link itself: its folder resolved, its own name not followed. */
  path: ToolPath;
  /** The folder holding the link, where removing it writes. */
  folder: ToolPath;
  /** What the link points to, as stored in it (for putting it back). */
  text: string;
}

/**
 * The link `target` was resolved through, when the path the model gave is
 * itself a symbolic link; null otherwise. Reads only (lstat, readlink).
 */
export function symlinkAt(
  ctx: Pick<ToolContext, "workspace" | "extraDirs">,
  target: ToolPath,
): SymlinkAt | null {
  const requested = target.resolved.requested;
  let text: string;
  try {
    if (!Deno.lstatSync(requested).isSymlink) return null;
    text = Deno.readLinkSync(requested);
  } catch {
    return null;
  }
  const parent = resolveWorkspacePath(ctx.workspace, path.dirname(requested), ctx.extraDirs);
  const name = path.basename(requested);
  const real = path.join(parent.real, name);
  const relative = parent.relative === null
    ? null
    : parent.relative === "."
    ? name
    : `${parent.relative}/${name}`;
  return {
    path: {
      resolved: { requested, real, relative, inside: parent.inside },
      real,
      display: relative ?? real,
    },
    folder: { resolved: parent, real: parent.real, display: parent.relative ?? parent.real },
    text,
  };
}
