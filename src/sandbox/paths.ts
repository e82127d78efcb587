/**
 * The one path resolver. Every tool and every rule goes through it: `~` is
 * expanded, relative paths are anchored at the workspace, `..` normalised, and
 * symlinks resolved with realpath before any containment check — a link inside
 * the workspace that points outside is outside.
 */
import * as path from "node:path";

export interface ResolvedPath {
  /** Absolute, normalised path as asked for (before symlinks). */
  requested: string;
  /** Absolute path with every existing symlink resolved. */
  real: string;
  /** `real` relative to the workspace, with forward slashes; null when outside. */
  relative: string | null;
  /** True when `real` lies inside the workspace or an extra folder. */
  inside: boolean;
}

export function homeDir(): string {
  return Deno.env.get("HOME") ?? Deno.env.get("USERPROFILE") ?? "/";
}

export function expandHome(input: string): string {
  if (input === "~") return homeDir();
  if (input.startsWith("~/")) return path.join(homeDir(), input.slice(2));
  return input;
}

/**
 * realpath of the longest existing prefix, with the missing rest appended:
 * a file about to be created resolves through its real parent.
 */
export function realpathLenient(absolute: string): string {
  let current = absolute;
  const rest: string[] = [];
  for (;;) {
    try {
      const real = Deno.realPathSync(current);
      return rest.length ? path.join(real, ...rest.reverse()) : real;
    } catch (error) {
      if (error instanceof Deno.errors.NotCapable) throw error;
      const parent = path.dirname(current);
      if (parent === current) return absolute;
      rest.push(path.basename(current));
      current = parent;
    }
  }
}

export function isWithin(root: string, candidate: string): boolean {
  const relative = path.relative(root, candidate);
  return relative === "" || (!relative.startsWith("..") && !path.isAbsolute(relative));
}

export function resolveWorkspacePath(
  workspace: string,
  input: string,
  extraDirs: string[] = [],
): ResolvedPath {
  const requested = path.resolve(workspace, expandHome(input));
  const real = realpathLenient(requested);
  const inWorkspace = isWithin(workspace, real);
  const inside = inWorkspace || extraDirs.some((dir) => isWithin(dir, real));
  const relative = inWorkspace
    ? path.relative(workspace, real).split(path.sep).join("/") || "."
    : null;
  return { requested, real, relative, inside };
}

/** How a path is shown to the model and in rules: relative inside, absolute outside. */
export function displayPath(resolved: ResolvedPath): string {
  return resolved.relative ?? resolved.real;
}
