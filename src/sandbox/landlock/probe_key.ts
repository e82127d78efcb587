/**
 * What the sandbox probes' answers depend on, as one string: the kernel
 * (release, build, active security modules, the limits on user namespaces),
 * the program that runs the Landlock exec step (the Deno executable, skiff's
 * entry point and the step's modules, by path, size and mtime), each
 * bubblewrap the probe tries (by the same), the container (mount and user
 * namespace, cgroup, pid 1, seccomp mode) and the user. A cached answer is
 * used only under the same key (sandbox/landlock/probe_cache.ts, sandbox/bwrap/probe_cache.ts),
 * so any of these changing re-probes.
 * Reading /proc needs full permissions in Deno: the host computes the key and
 * the engine's Worker receives it (`spec.sandbox.landlockProbeKey`).
 */
import { fileURLToPath } from "../../lib/path.ts";
import { BWRAP_CANDIDATES } from "../bwrap/probe_cache.ts";
import { ENTRY_URL, fromRoot } from "../../contracts/entry.ts";

/** Where the kernel says whether, and how many, user namespaces a user may make. */
const USERNS_LIMITS = [
  "/proc/sys/kernel/unprivileged_userns_clone",
  "/proc/sys/user/max_user_namespaces",
  "/proc/sys/kernel/apparmor_restrict_unprivileged_userns",
];

/**
 * The step's own code: main.ts dispatches to sandbox/landlock/exec.ts, which uses
 * these. Named from the entry (src/contracts/entry.ts), not from this module: the
 * step always runs from the sources, and in the bundle this module is a chunk
 * elsewhere, where these paths would name nothing and no key could be made.
 */
const STEP_MODULES = [
  ENTRY_URL,
  fromRoot("src/sandbox/landlock/exec.ts"),
  fromRoot("src/sandbox/landlock/landlock.ts"),
  fromRoot("src/sandbox/landlock/read_rules.ts"),
];

/** A file's identity: path, size and mtime. */
function fileStamp(file: string): string {
  const info = Deno.statSync(file);
  return `${file}:${info.size}:${info.mtime?.getTime() ?? "?"}:${info.ino ?? "?"}`;
}

/** A file's identity, or its path alone when it is absent. */
function stampOr(file: string): string {
  try {
    return fileStamp(file);
  } catch {
    return `${file}:-`;
  }
}

/** A file that may be absent or closed to this user: its text, else `missing`. */
function readOr(file: string, missing: string): string {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return missing;
  }
}

/**
 * The key for this process, or undefined when any part cannot be read (no
 * permission, not Linux): then nothing is cached and the probe runs.
 */
export function landlockProbeKey(
  standalone: boolean = Deno.build.standalone,
  platform: typeof Deno.build.os = Deno.build.os,
): string | undefined {
  if (platform !== "linux") return undefined;
  try {
    const status = Deno.readTextFileSync("/proc/self/status");
    const seccomp = status.split("\n").filter((line) => line.startsWith("Seccomp")).join(",");
    const modules = standalone ? [] : STEP_MODULES.map((url) => fileStamp(fileURLToPath(url)));
    return JSON.stringify({
      kernel: Deno.readTextFileSync("/proc/sys/kernel/osrelease").trim(),
      version: Deno.readTextFileSync("/proc/version").trim(),
      // Lists landlock when it is enabled; absent where securityfs is not mounted.
      lsm: readOr("/sys/kernel/security/lsm", "-"),
      program: [fileStamp(Deno.execPath()), ...modules],
      bwrap: BWRAP_CANDIDATES.filter((file) => file.startsWith("/")).map((file) => stampOr(file)),
      userns: USERNS_LIMITS.map((file) => readOr(file, "-").trim()),
      mountNamespace: Deno.statSync("/proc/self/ns/mnt").ino,
      userNamespace: Deno.statSync("/proc/self/ns/user").ino,
      cgroup: Deno.readTextFileSync("/proc/self/cgroup"),
      // Pid 1's name, as its first line names it; the thread count changes.
      init: readOr("/proc/1/sched", "-").split("\n")[0].replace(/, #threads: \d+/, ""),
      seccomp,
      uid: Deno.uid(),
    });
  } catch {
    return undefined;
  }
}
