/**
 * Resource limits for sandboxed commands: the size of each private tmpfs
 * (`/tmp`, `/dev/shm`, `/run`), and how many processes one command may have
 * at once, so a fork bomb stops at the limit instead of taking the machine.
 *
 * The process limit is RLIMIT_NPROC inside the command's user namespace,
 * where the kernel counts only that namespace's processes. The kernel never
 * applies RLIMIT_NPROC to root, so when skiff runs as root the limit is a
 * `pids` cgroup per command instead, made by a small shell step before
 * bubblewrap starts. With neither (root without a writable cgroup) the count
 * is not bounded; docs/security.md says so.
 */

export interface SandboxLimits {
  /** Size of the private /tmp and of /dev/shm, in MiB. @default 1024 */
  tmpMB: number;
  /** Processes (and threads) one command may run at once. @default 1024 */
  processes: number;
}

export const DEFAULT_LIMITS: SandboxLimits = { tmpMB: 1024, processes: 1024 };

/** /run holds only the DNS resolver's files. */
export const RUN_TMPFS_BYTES = 16 * 1024 * 1024;

/** The user's limits where given, the defaults elsewhere. */
export function sandboxLimits(config: Partial<SandboxLimits> = {}): SandboxLimits {
  return {
    tmpMB: config.tmpMB ?? DEFAULT_LIMITS.tmpMB,
    processes: config.processes ?? DEFAULT_LIMITS.processes,
  };
}

/**
 * A project file may lower a limit, not raise it: the stricter of the
 * project's value and the user's own (or the default).
 */
export function limitsWithProject(
  user: Partial<SandboxLimits> = {},
  merged: Partial<SandboxLimits> = {},
): SandboxLimits {
  const own = sandboxLimits(user);
  const all = sandboxLimits(merged);
  return {
    tmpMB: Math.min(own.tmpMB, all.tmpMB),
    processes: Math.min(own.processes, all.processes),
  };
}

export function mebibytes(mb: number): string {
  return String(mb * 1024 * 1024);
}

/**
 * The lines of a cgroup step (`$b` the cgroup root in use) that clear the
 * folders of sandboxes that are over: each folder is named after the pid of
 * its sandbox's bwrap (or step), and once that pid is gone the folder goes,
 * with whatever is still in it. Something is when skiff (and so bwrap, by
 * `--die-with-parent`) was killed while bubblewrap set the sandbox up: its
 * child, pid 1 of the new namespace, waits forever for a word from the
 * parent that is gone (SIGKILL at a random moment of a first `skiff tool
 * bash` left one in 5 of 40 tries; docs/security.md). Ending
 * that process ends its namespace. One `rmdir` for every folder: each
 * program started here costs a few ms. A folder whose process has not been
 * reaped yet stays for the next start.
 */
export const CLEAR_FINISHED_SANDBOXES = [
  "  gone=",
  '  for d in "$b"/skiff-*; do',
  '    [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null || continue',
  '    while read -r p; do kill -9 "$p" 2>/dev/null; done <"$d/cgroup.procs"',
  '    gone="$gone $d"',
  "  done",
  '  [ -z "$gone" ] || rmdir $gone 2>/dev/null',
].join("\n");

/**
 * The shell step before bwrap when skiff runs as root: a `pids` cgroup for
 * this command (v1 `/sys/fs/cgroup/pids`, or v2 where the root cgroup
 * delegates `pids`), entered before exec so every process of the command is
 * counted. Folders of finished sandboxes are cleared first
 * (`CLEAR_FINISHED_SANDBOXES`). Where no such cgroup is writable, bwrap runs
 * without it.
 *
 * Arguments: `$1` the limit, then the bwrap argv.
 */
export const ROOT_PIDS_STEP = [
  "n=$1; shift",
  "for b in /sys/fs/cgroup/pids /sys/fs/cgroup; do",
  '  [ -w "$b/cgroup.procs" ] || continue',
  '  [ "$b" = /sys/fs/cgroup/pids ] || grep -qw pids "$b/cgroup.subtree_control" 2>/dev/null || continue',
  CLEAR_FINISHED_SANDBOXES,
  "  d=$b/skiff-$$",
  // v1: moving this one thread ("0" in `tasks`) spares the kernel a global
  // lock that `cgroup.procs` takes (several ms per command).
  '  if [ "$b" = /sys/fs/cgroup/pids ]; then f=tasks m=0; else f=cgroup.procs m=$$; fi',
  '  mkdir -p "$d" && echo "$n" > "$d/pids.max" && echo "$m" > "$d/$f" && break',
  '  echo "skiff: could not limit processes in $d" >&2; exit 126',
  "done",
  'exec "$@"',
].join("\n");

/**
 * The command's first step inside the sandbox when skiff is not root:
 * RLIMIT_NPROC for the shell, inherited by everything it starts.
 */
export function nprocStep(processes: number): string {
  return `prlimit --nproc=${processes} --pid $$ 2>/dev/null; `;
}
