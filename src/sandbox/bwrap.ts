/**
 * Linux process sandbox: every command runs under bubblewrap with the whole
 * filesystem read-only, only the workspace (and `--add-dir`s) writable, a
 * private /tmp, no network unless allowed, its own pid namespace, no
 * capabilities, and an environment holding only allowlisted names.
 */
import type { ProcessLauncher } from "../tools/tool.ts";
import { childEnv } from "./env.ts";
import type { SandboxSettings } from "./modes.ts";
import { realpathLenient } from "./paths.ts";
import { protectedPaths } from "./protected.ts";

export interface BwrapOptions {
  /** The bwrap binary. @default "bwrap" */
  bwrapPath?: string;
  /** Reads an environment variable; injectable for tests. */
  getEnv?: (name: string) => string | undefined;
}

function exists(target: string): boolean {
  try {
    Deno.lstatSync(target);
    return true;
  } catch {
    return false;
  }
}

/** The bwrap arguments before the command, for `settings`. Pure apart from existence checks. */
export function bwrapArgs(
  settings: SandboxSettings,
  cwd: string,
  env: Record<string, string>,
): string[] {
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    "--proc",
    "/proc",
    "--tmpfs",
    "/tmp",
  ];
  if (settings.mode !== "read-only") {
    for (const dir of [settings.workspace, ...settings.addDirs]) {
      const real = realpathLenient(dir);
      args.push("--bind", real, real);
    }
    // Re-bound read-only over the writable workspace. A protected path that
    // does not exist yet cannot be bound (bwrap would create it on the host);
    // docs/security.md names this gap and the policy asks for commands naming them.
    for (const target of protectedPaths(settings.workspace)) {
      if (exists(target)) args.push("--ro-bind", target, target);
    }
  }
  if (!settings.network) args.push("--unshare-net");
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--new-session",
    "--die-with-parent",
    // Run as root, bwrap would otherwise keep every capability, and
    // CAP_SYS_ADMIN can remount `/` read-write.
    "--cap-drop",
    "ALL",
    "--clearenv",
  );
  for (const [name, value] of Object.entries(env)) args.push("--setenv", name, value);
  args.push("--chdir", cwd);
  return args;
}

/**
 * A launcher for bubblewrap. Spawn the returned argv with exactly the
 * returned `env` and `clearEnv: true`: inside the sandbox bwrap is pid 1, and
 * a child can read pid 1's environment.
 */
export function bwrapLauncher(
  settings: SandboxSettings,
  options: BwrapOptions = {},
): ProcessLauncher {
  const bwrap = options.bwrapPath ?? "bwrap";
  return {
    prepare(command: string, cwd: string) {
      const env = childEnv(settings.envNames, options.getEnv);
      // /tmp is private inside; a TMPDIR pointing elsewhere would be read-only.
      env.TMPDIR = "/tmp";
      const argv = [bwrap, ...bwrapArgs(settings, cwd, env), "--", "sh", "-c", command];
      return Promise.resolve({ argv, env });
    },
  };
}
