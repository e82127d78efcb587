/**
 * The shell that runs commands: bash when it is installed (models write
 * bash — `[[ ]]`, arrays, `set -o pipefail`, process substitution, brace
 * expansion), else `sh`, which is dash on Debian and Ubuntu. The engine
 * Worker may read exactly these paths to find out (worker_permissions.ts).
 */

/**
 * Where the `setsid` program (util-linux) is looked for: a command's shell
 * starts through it as the leader of its own session
 * (src/tools/process/_process_group.ts), and the engine Worker may start it.
 */
export const SETSID_PATHS: readonly string[] = ["/usr/bin/setsid", "/bin/setsid"];

/** Where bash is looked for. */
export const BASH_PATHS: readonly string[] = ["/bin/bash", "/usr/bin/bash"];

export interface CommandShell {
  /** What the launchers run: an absolute bash path, or `sh` (found on PATH). */
  program: string;
  name: "bash" | "sh";
}

function isFile(file: string): boolean {
  try {
    return Deno.statSync(file).isFile;
  } catch {
    return false;
  }
}

/**
 * Every path of `BASH_PATHS` that is a file. A permission to run a program
 * names each path (`/bin/bash` may be a link to `/usr/bin/bash`, and the
 * Worker, which may read only these two, cannot tell which it resolves to).
 */
export function installedBashPaths(exists: (file: string) => boolean = isFile): string[] {
  return BASH_PATHS.filter(exists);
}

/** bash when one of `BASH_PATHS` is a file, else sh. `exists` is injectable for tests. */
export function commandShell(exists: (file: string) => boolean = isFile): CommandShell {
  const bash = BASH_PATHS.find(exists);
  return bash ? { program: bash, name: "bash" } : { program: "sh", name: "sh" };
}
