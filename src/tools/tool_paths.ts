/**
 * How the file tools turn a path the model gave into what the policy judges:
 * one resolver (sandbox/paths.ts), the permission key, the pattern a rule
 * matches (workspace-relative inside, absolute outside) and the real paths.
 */
import { hiddenHolder, hiddenRefusal } from "../sandbox/hidden.ts";
import { isCredentialBearingGitFile } from "../sandbox/git_credentials.ts";
import {
  displayPath,
  isWithin,
  realpathLenient,
  type ResolvedPath,
  resolveWorkspacePath,
} from "../sandbox/paths.ts";
import { spillFolder } from "../store/tool_output.ts";
import { type Access, type ToolContext, ToolError } from "./tool.ts";

export interface ToolPath {
  resolved: ResolvedPath;
  /** Absolute path with symlinks resolved: the key for the ledger and locks. */
  real: string;
  /** What the model and the rules see. */
  display: string;
  /** In this session's own spill folder: read without `external_directory`. */
  ownSpill?: boolean;
}

type SpillContext = Pick<ToolContext, "dataDir" | "sessionId">;

/** True when `real` lies in this session's spilled-output folder (src/store/tool_output.ts). */
export function inOwnSpillFolder(ctx: Partial<SpillContext>, real: string): boolean {
  if (!ctx.dataDir || !ctx.sessionId) return false;
  return isWithin(realpathLenient(spillFolder(ctx.dataDir, ctx.sessionId)), real);
}

export function resolveToolPath(
  ctx: Pick<ToolContext, "workspace" | "extraDirs" | "hidden" | "dataDir"> & Partial<SpillContext>,
  input: string,
): ToolPath {
  if (input.trim() === "") {
    throw new ToolError(
      "bad_input",
      "file_path is empty.",
      "Give the path of a file in the workspace.",
    );
  }
  let resolved: ResolvedPath;
  try {
    resolved = resolveWorkspacePath(ctx.workspace, input, ctx.extraDirs);
  } catch (error) {
    throw fileSystemError(input, "resolve", error);
  }
  refuseHidden(ctx, resolved.real, displayPath(resolved));
  return {
    resolved,
    real: resolved.real,
    display: displayPath(resolved),
    ownSpill: !resolved.inside && inOwnSpillFolder(ctx, resolved.real),
  };
}

/**
 * A hidden path (keys, skiff's config and data, a git config holding a
 * credential) is refused before any rule is asked.
 */
export function refuseHidden(
  ctx: Pick<ToolContext, "hidden" | "dataDir"> & Partial<SpillContext>,
  real: string,
  display: string,
): void {
  const hidden = ctx.hidden ?? [];
  // A git config holding a credential in a repository the session's start
  // did not search (nested, or made since) is refused the same way.
  if (isCredentialBearingGitFile(real)) {
    const { reason, hint } = hiddenRefusal(display, real);
    throw new ToolError("denied", reason, hint);
  }
  // The spill folder matters only for a path some entry holds (never a workspace file).
  if (hiddenHolder(hidden, real) === null) return;
  const own = ctx.sessionId ? spillFolder(ctx.dataDir, ctx.sessionId) : undefined;
  const holder = hiddenHolder(hidden, real, own);
  if (holder === null) return;
  const { reason, hint } = hiddenRefusal(display, holder);
  throw new ToolError("denied", reason, hint);
}

/**
 * The Access of a call touching `paths`: "read" reads them, "edit" writes
 * them. Reading the session's own spilled output is not reading outside the
 * workspace (the output notice sends the model there); the read rules still apply.
 */
export function fileAccess(key: "read" | "edit", paths: ToolPath[], preview?: string): Access {
  const real = [...new Set(paths.map((p) => p.real))];
  const reads = key === "read"
    ? [...new Set(paths.filter((p) => !p.ownSpill).map((p) => p.real))]
    : real;
  return {
    key,
    patterns: [...new Set(paths.map((p) => p.display))],
    ...(key === "read" ? { reads } : { reads, writes: real }),
    ...(preview ? { preview } : {}),
  };
}

/** Files above this size are not edited through a preview at declare time. */
export const PREVIEW_MAX_BYTES = 1_000_000;

/** A failed write or read of `display`, as an error the model can act on. */
export function fileSystemError(display: string, verb: string, error: unknown): ToolError {
  if (error instanceof ToolError) return error;
  const reason = error instanceof Error ? error.message : String(error);
  if (error instanceof Deno.errors.NotCapable) {
    return new ToolError(
      "not_capable",
      `The sandbox does not allow skiff to ${verb} ${display}.`,
      "Work inside the workspace, or ask the user to allow this folder (--add-dir).",
    );
  }
  if (error instanceof Deno.errors.PermissionDenied) {
    return new ToolError(
      "failed",
      `Permission denied when trying to ${verb} ${display}.`,
      "The file or its folder is not writable; tell the user, or choose another path.",
    );
  }
  return new ToolError(
    "failed",
    `Could not ${verb} ${display}: ${reason}`,
    "Check the path (a parent may be a file rather than a folder) and retry.",
  );
}

/** Run `work`; any failure that is not already a ToolError becomes one about `display`. */
export async function withFileErrors<T>(
  display: string,
  verb: string,
  work: () => Promise<T>,
): Promise<T> {
  try {
    return await work();
  } catch (error) {
    throw fileSystemError(display, verb, error);
  }
}
