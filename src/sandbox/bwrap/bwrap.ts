/**
 * Linux process sandbox: every command runs under bubblewrap with the whole
 * filesystem read-only, only the workspace (and `--add-dir`s) writable, the
 * user's keys and skiff's own config and data hidden, a private size-limited
 * /tmp, no network unless allowed, its own user, pid, UTS and IPC
 * namespaces, no capabilities, a process limit, and an environment holding
 * only allowlisted names.
 */
import * as path from "../../lib/path.ts";
import type { ProcessLauncher } from "../../contracts/process_launcher.ts";
import { childEnv, SANDBOX_GIT_ENV } from "../env.ts";
import { defaultHiddenFor, hiddenAround, type HiddenMount, hiddenMounts } from "../hidden.ts";
import {
  DEFAULT_LIMITS,
  mebibytes,
  nprocStep,
  ROOT_PIDS_STEP,
  RUN_TMPFS_BYTES,
} from "../limits.ts";
import type { SandboxSettings } from "../modes.ts";
import { realpathLenient } from "../paths.ts";
import { createMissingHooksFolders, protectedPaths, recentGitProtection } from "../protected.ts";
import { shownGitConfig } from "../git_credentials.ts";
import { type Listings, presenceOf } from "../dir_entries.ts";

export interface BwrapOptions {
  /** The bwrap binary. @default "bwrap" */
  bwrapPath?: string;
  /** Reads an environment variable; injectable for tests. */
  getEnv?: (name: string) => string | undefined;
  /** The user skiff runs as; 0 is root. @default Deno.uid() */
  uid?: number | null;
  /** The shell that runs the command (src/sandbox/shell.ts). @default "sh" */
  shell?: string;
}

/**
 * The command's first step when the caller asks for it (the bash tool): a
 * lifeline to skiff through its stdin. skiff writes one line as soon as the process exists; a
 * command whose skiff died before that never runs. A watchdog outside the
 * command's own children then waits on the pipe, and when skiff dies (the
 * pipe closes) it kills every process in the sandbox. This holds even when
 * skiff is killed while bubblewrap is still setting up, before its
 * parent-death signal is in place. The command itself reads /dev/null.
 */
export const LIFELINE_STEP = "IFS= read -r _ || exit 125; " +
  "exec 3<&0 </dev/null; ( { IFS= read -r _; kill -9 -1; } <&3 & ); exec 3<&-; ";

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

export interface BwrapArgsOptions {
  /** skiff runs as root: the user namespace is required, not best effort. */
  root: boolean;
  /** Paths to hide (src/sandbox/hidden.ts). */
  hidden: readonly HiddenMount[];
  /** Size of /tmp and /dev/shm in MiB. */
  tmpMB: number;
}

/** The bwrap arguments before the command, for `settings`. Pure apart from existence checks. */
export function bwrapArgs(
  settings: SandboxSettings,
  cwd: string,
  env: Record<string, string>,
  options: BwrapArgsOptions = { root: false, hidden: [], tmpMB: DEFAULT_LIMITS.tmpMB },
): string[] {
  const tmpSize = mebibytes(options.tmpMB);
  const args = [
    "--ro-bind",
    "/",
    "/",
    "--dev",
    "/dev",
    // bwrap's /dev is a tmpfs without a size limit: give /dev/shm its own,
    // sized one, and make the rest of /dev read-only (below).
    "--size",
    tmpSize,
    "--tmpfs",
    "/dev/shm",
    "--proc",
    "/proc",
    // bwrap leaves /proc/sys writable when the caller is root (the folder
    // looks read-only to its check, the files inside are not): root writing
    // kernel.core_pattern makes the kernel run a program of its choosing,
    // as root, outside every namespace. /proc/sysrq-trigger reboots.
    "--ro-bind",
    "/proc/sys",
    "/proc/sys",
    "--ro-bind-try",
    "/proc/sysrq-trigger",
    "/proc/sysrq-trigger",
    "--size",
    tmpSize,
    "--tmpfs",
    "/tmp",
    // Host sockets live under /run (Docker, the session and system buses,
    // systemd): a network namespace does not cover Unix sockets reached by
    // path, and a read-only mount does not stop connecting to one.
    "--size",
    String(RUN_TMPFS_BYTES),
    "--tmpfs",
    "/run",
    // …but DNS needs the resolver's files when the network is allowed.
    "--ro-bind-try",
    "/run/systemd/resolve",
    "/run/systemd/resolve",
  ];
  if (lstatOrNull("/var/run")?.isDirectory) {
    args.push("--size", String(RUN_TMPFS_BYTES), "--tmpfs", "/var/run");
  }
  // Bound again after the private /tmp and /run, which would otherwise hide
  // a workspace living under them.
  for (const dir of settings.visible ?? []) {
    const real = realpathLenient(dir);
    if (exists(real)) args.push("--ro-bind", real, real);
  }
  if (settings.mode === "read-only") {
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
    // Most of the paths below do not exist: one listing per folder answers
    // for them instead of a failed lstat each (dir_entries.ts).
    const listings: Listings = new Map();
    const present = (target: string) => presenceOf(target, listings) !== "absent";
    // The same for the folders holding project agents: renamed, a fresh
    // `agents/` folder beside the read-only one would be loaded next time.
    for (const name of [".claude", ".opencode"]) {
      const dir = path.join(realpathLenient(settings.workspace), name);
      if (present(dir) && lstatOrNull(dir)?.isDirectory) args.push("--bind", dir, dir);
    }
    // Re-bound read-only over the writable workspace. A protected path that
    // does not exist yet cannot be bound (bwrap would create it on the host);
    // the command guard reverts such a path when a command creates it.
    // A git config holding a credential is shown without it (git_credentials.ts).
    for (const target of protectedPaths(settings.workspace, settings.addDirs, git)) {
      const info = present(target) ? lstatOrNull(target) : null;
      if (info) args.push("--ro-bind", shownGitConfig(target, info, settings.gitViews), target);
    }
  }
  const applying = hiddenAround(
    options.hidden.map((mount) => mount.path),
    [settings.workspace, ...settings.addDirs],
  );
  hide(args, options.hidden.filter((mount) => applying.includes(mount.path)));
  args.push("--remount-ro", "/dev");
  if (!settings.network) args.push("--unshare-net");
  // A user namespace even for root: capabilities, should any survive, then
  // count only inside it, and no further namespace can be made within.
  // Outside, the command still runs as the caller (bwrap maps the caller's
  // own uid, 0 for root, and no other); inside it keeps that uid, so files
  // it creates belong to the user as before. For a non-root user a setuid
  // bwrap on a kernel without user namespaces still works without one.
  if (options.root) args.push("--unshare-user", "--disable-userns");
  else args.push("--unshare-user-try");
  args.push(
    "--unshare-pid",
    "--unshare-ipc",
    "--unshare-uts",
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
 * Mounts over each hidden path that exists: an empty read-only tmpfs over a
 * folder, /dev/null over a file (a git config holding a credential: its
 * copy without it). Last, so a hidden path inside the
 * workspace stays hidden under its writable bind.
 */
function hide(args: string[], hidden: readonly HiddenMount[]): void {
  for (const { path: target, folder, view } of hidden) {
    if (folder) {
      args.push("--perms", "0500", "--size", "4096", "--tmpfs", target, "--remount-ro", target);
    } else args.push("--ro-bind", view ?? "/dev/null", target);
  }
}

/** The environment of a sandboxed command: the allowlist, a private TMPDIR, git's safety settings. */
export function sandboxEnv(
  settings: SandboxSettings,
  getEnv?: (name: string) => string | undefined,
): Record<string, string> {
  const env = childEnv(settings.envNames, getEnv);
  // /tmp is private inside; a TMPDIR pointing elsewhere would be read-only.
  env.TMPDIR = "/tmp";
  Object.assign(env, SANDBOX_GIT_ENV);
  return env;
}

/** The paths hidden from commands: the settings' own, else the user's keys and skiff's data. */
export function sandboxHidden(
  settings: SandboxSettings,
  options: BwrapOptions = {},
): HiddenMount[] {
  const home = (options.getEnv ?? ((name) => Deno.env.get(name)))("HOME") ?? "/";
  return settings.hidden ?? hiddenMounts(defaultHiddenFor(home, settings.workspace));
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
  const root = (options.uid === undefined ? Deno.uid() : options.uid) === 0;
  const limits = settings.limits ?? DEFAULT_LIMITS;
  const hidden = sandboxHidden(settings, options);
  return {
    prepare(command: string, cwd: string, prepareOptions: { lifeline?: boolean } = {}) {
      const env = sandboxEnv(settings, options.getEnv);
      const args = bwrapArgs(settings, cwd, env, { root, hidden, tmpMB: limits.tmpMB });
      // The kernel exempts root from RLIMIT_NPROC: root gets a cgroup instead.
      const lifeline = prepareOptions.lifeline === true;
      const script = (lifeline ? LIFELINE_STEP : "") + (root ? "" : nprocStep(limits.processes)) +
        command;
      const sandboxed = [bwrap, ...args, "--", options.shell ?? "sh", "-c", script];
      const argv = root
        ? ["sh", "-c", ROOT_PIDS_STEP, "skiff-limit", String(limits.processes), ...sandboxed]
        : sandboxed;
      return Promise.resolve({ argv, env, lifeline });
    },
  };
}
