/**
 * Where skiff keeps its data, worked out from the environment alone and with
 * no module of its own: the engine's Worker is started before the CLI loads
 * (src/boot/prewarm.ts), and Deno's Node layer (`node:path`) would cost that
 * start time (docs/performance.md). POSIX paths, as everywhere skiff's sandboxes run.
 */

/**
 * `$SKIFF_DATA_DIR`, else `$XDG_DATA_HOME/skiff`, else `~/.local/share/skiff`.
 * Pure: it reads only `env` and, for a relative `SKIFF_DATA_DIR`, `cwd`.
 */
export function resolveDataDir(
  env: Record<string, string | undefined>,
  cwd: () => string = Deno.cwd,
): string {
  if (env.SKIFF_DATA_DIR) {
    const dir = env.SKIFF_DATA_DIR;
    return normalize(dir.startsWith("/") ? dir : `${cwd()}/${dir}`);
  }
  // The XDG spec says a relative value is invalid and must be ignored.
  if (env.XDG_DATA_HOME && env.XDG_DATA_HOME.startsWith("/")) {
    return normalize(`${env.XDG_DATA_HOME}/skiff`);
  }
  const home = env.HOME ?? env.USERPROFILE ?? "/";
  return normalize(home === "" ? ".local/share/skiff" : `${home}/.local/share/skiff`);
}

/** `.` and `..` resolved, repeated and trailing slashes dropped, as `path.normalize` does. */
export function normalize(at: string): string {
  const absolute = at.startsWith("/");
  const parts: string[] = [];
  for (const part of at.split("/")) {
    if (part === "" || part === ".") continue;
    if (part === ".." && parts.length > 0 && parts[parts.length - 1] !== "..") parts.pop();
    else if (part !== ".." || !absolute) parts.push(part);
  }
  const joined = parts.join("/");
  return absolute ? `/${joined}` : joined || ".";
}
