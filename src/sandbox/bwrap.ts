/**
 * Linux process sandbox: every command runs under bubblewrap with the whole
 * filesystem read-only, only the workspace (and `--add-dir`s) writable, a
 * private /tmp, no network unless allowed, its own pid namespace, no
 * capabilities, and an environment holding only allowlisted names.
 */
import * as path from "node:path";
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

function lstatOrNull(target: string): Deno.FileInfo | null {
  try {
    return Deno.lstatSync(target);
  } catch {
    return null;
  }
}

function exists(target: string): boolean {
  return lstatOrNull(target) !== null;
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
    // Host sockets live under /run (Docker, the session and system buses,
    // systemd): a network namespace does not cover Unix sockets reached by
    // path, and a read-only mount does not stop connecting to one.
    "--tmpfs",
    "/run",
    // …but DNS needs the resolver's files when the network is allowed.
    "--ro-bind-try",
    "/run/systemd/resolve",
    "/run/systemd/resolve",
  ];
  if (lstatOrNull("/var/run")?.isDirectory) args.push("--tmpfs", "/var/run");
  if (settings.mode === "read-only") {
    // Bound again after the private /tmp and /run, which would otherwise hide
    // a workspace living under them.
    for (const dir of [settings.workspace, ...settings.addDirs]) {
      const real = realpathLenient(dir);
      args.push("--ro-bind", real, real);
    }
  } else {
    for (const dir of [settings.workspace, ...settings.addDirs]) {
      const real = realpathLenient(dir);
      args.push("--bind", real, real);
    }
    // `.git` bound onto itself: a mount point cannot be renamed, so a command
    // cannot move the real `.git` aside and build a new one with its own hooks.
    // A `.git` file (worktree, submodule) names where the repository lives:
    // rewritten, it could point git at hooks the command planted.
    const gitDir = path.join(realpathLenient(settings.workspace), ".git");
    const gitInfo = lstatOrNull(gitDir);
    if (gitInfo?.isDirectory) args.push("--bind", gitDir, gitDir);
    else if (gitInfo?.isFile) args.push("--ro-bind", gitDir, gitDir);
    // The same for the folders holding project agents: renamed, a fresh
    // `agents/` folder beside the read-only one would be loaded next time.
    for (const name of [".claude", ".opencode"]) {
      const dir = path.join(realpathLenient(settings.workspace), name);
      if (lstatOrNull(dir)?.isDirectory) args.push("--bind", dir, dir);
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
