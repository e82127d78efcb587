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
import { createMissingHooksFolders, protectedPaths, recentGitProtection } from "./protected.ts";

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
    // Every repository at any depth: each `.git` folder bound onto itself (a
    // mount point cannot be renamed, so a command cannot move it aside and
    // build a new one with its own hooks); its hooks, config and commondir,
    // its submodules' and worktrees' too, and a `.git` file (rewritten, it
    // would point git elsewhere) re-bound read-only below. A missing hooks
    // folder is created empty first, so it can be bound.
    const git = recentGitProtection([settings.workspace, ...settings.addDirs]);
    createMissingHooksFolders(git);
    for (const dir of git.gitDirs) args.push("--bind", dir, dir);
    // The same for the folders holding project agents: renamed, a fresh
    // `agents/` folder beside the read-only one would be loaded next time.
    for (const name of [".claude", ".opencode"]) {
      const dir = path.join(realpathLenient(settings.workspace), name);
      if (lstatOrNull(dir)?.isDirectory) args.push("--bind", dir, dir);
    }
    // Re-bound read-only over the writable workspace. A protected path that
    // does not exist yet cannot be bound (bwrap would create it on the host);
    // the command guard reverts such a path when a command creates it.
    for (const target of protectedPaths(settings.workspace, settings.addDirs, git)) {
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
