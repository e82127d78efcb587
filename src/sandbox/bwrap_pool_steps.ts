/**
 * The shell steps of the session-long bubblewrap sandbox (bwrap_pool.ts):
 * the step that starts one sandbox, the holder that stays in it as pid 1,
 * and the step that runs one command in it. Plain strings, so the launcher
 * stays a pure argv builder and a test can read what runs.
 *
 * Why each piece is there:
 * - The holder is pid 1 of the sandbox's pid namespace, so the kernel
 *   ignores any signal a command sends it, and when it dies every process in
 *   the namespace dies. It is the shell copied into the sandbox as a file
 *   its own user cannot read (mode 0111): the kernel marks a process that
 *   runs an unreadable program as not dumpable, so a command cannot read or
 *   write its memory (`/proc/1/mem`) or open its namespaces, and so cannot
 *   plant code in the one process that outlives each command.
 * - Each command enters the namespaces from outside (`nsenter`), gives up
 *   every capability (`setpriv`), and lives in a `pids` cgroup of its own
 *   sandbox, which the step outside — out of the command's reach — empties
 *   when the command ends or is stopped: that is how no process outlives
 *   its command, whether it was backgrounded or left the session.
 */

/**
 * Starts one sandbox. `$1` the process limit, `$2` the shell to copy in as
 * the holder, then the bwrap argv. Prints `cgroup <dir> <file> <value>` (the
 * commands' cgroup, the file a process writes to join it and what it
 * writes) or `nocgroup`, then `tools <nsenter> <setpriv>` (absolute paths),
 * then execs bwrap, whose `--info-fd 4` reports the
 * holder's pid and whose holder prints `ready`.
 */
export const POOL_START_STEP = [
  'n=$1 s=$2; shift 2; found=""',
  "for b in /sys/fs/cgroup/pids /sys/fs/cgroup; do",
  '  [ -w "$b/cgroup.procs" ] || continue',
  '  [ "$b" = /sys/fs/cgroup/pids ] || grep -qw pids "$b/cgroup.subtree_control" 2>/dev/null || continue',
  '  for d in "$b"/skiff-*; do [ -d "$d" ] && ! kill -0 "${d##*-}" 2>/dev/null && rmdir "$d" 2>/dev/null; done',
  // Named after this shell's pid, which bwrap keeps (exec): a later step
  // removes the folder once this sandbox is gone.
  "  d=$b/skiff-pool-$$",
  '  if [ "$b" = /sys/fs/cgroup/pids ]; then f=tasks m=0; else f=cgroup.procs m=self; fi',
  '  mkdir -p "$d" && echo "$n" > "$d/pids.max" && found="$d $f $m" && break',
  "done",
  'if [ -n "$found" ]; then echo "cgroup $found"; else echo nocgroup; exit 0; fi',
  // Found on a fixed PATH, not the user's: these two run outside the sandbox.
  "p=/usr/sbin:/usr/bin:/sbin:/bin",
  'echo "tools $(PATH=$p; command -v nsenter) $(PATH=$p; command -v setpriv)"',
  'case $s in /*) ;; *) s=$(command -v "$s") ;; esac',
  'exec 3<"$s" 4>&1',
  'exec "$@"',
].join("\n");

/**
 * The holder's script. It reads its stdin (a pipe from skiff): each line
 * asks it to empty the private temp folders for the next command (every
 * process of the last one is gone by then), answered by `clean`; end of
 * input (skiff closed it or died) ends the holder and so the sandbox.
 * `$0` is the holder's own file, `$1` the marker, `$2` the folders to
 * empty (`foldersToClean`), then the entries of those that hold a mount
 * (`entriesHoldingMounts`); all these are kept.
 */
export const HOLDER_SCRIPT = [
  "exec 3<&- 4>&-",
  "echo ready",
  "while IFS= read -r _; do",
  '  for d in $2; do for f in "$d"/* "$d"/.[!.]* "$d"/..?*; do',
  // Kept: the holder, the marker, and every entry holding a mount of the
  // sandbox (a workspace or --add-dir under /tmp is the user's own folder,
  // bound there).
  '    keep=; for k in "$0" "$@" /run/systemd; do [ "$f" = "$k" ] && keep=1; done; [ -n "$keep" ] && continue',
  // A folder the command made unreadable (chmod 000) would stay: open it up first.
  '    [ -d "$f" ] && [ ! -L "$f" ] && chmod -R u+rwx -- "$f" 2>/dev/null',
  // --one-file-system: never into a mount below, should one be missed above.
  '    { [ -e "$f" ] || [ -L "$f" ]; } && rm -rf --one-file-system -- "$f" 2>/dev/null',
  "  done; done",
  // SysV shared memory, semaphores and queues live as long as the IPC
  // namespace, which the next command shares: removed like the files.
  "  ipcrm --all 2>/dev/null",
  "  echo clean",
  "done",
].join("\n");

/**
 * Runs one command in a sandbox. Arguments: `$1` the commands' cgroup, `$2`
 * the file to write to join it, `$3` what to write (`self`: this shell's
 * pid), `$4` the holder's pid, `$5` and `$6` nsenter and setpriv
 * (absolute paths), then the program
 * and its arguments (the shell and its script). Exits with the command's
 * status once nothing the command started is left in the cgroup; stopped
 * (SIGTERM), it empties the cgroup first too.
 */
export const POOL_COMMAND_STEP = [
  'd=$1 f=$2 m=$3 h=$4 ns=$5 sp=$6; shift 6; [ "$m" = self ] && m=$$',
  "empty() {",
  "  while :; do",
  "    o=",
  '    while IFS= read -r p; do [ "$p" = "$$" ] && continue; kill -9 "$p" 2>/dev/null; o=1; done < "$d/cgroup.procs"',
  '    [ -z "$o" ] && return',
  "  done",
  "}",
  // Whatever an earlier command left (it cannot have, unless its step was killed) goes first.
  "empty",
  'echo "$m" > "$d/$f" || { echo "skiff: could not enter the sandbox\'s cgroup $d" >&2; exit 126; }',
  "trap 'empty; exit 143' TERM INT HUP",
  // `--wd` without a folder: the holder's, which is inside. nsenter opens a
  // named folder (or keeps this step's) before it enters the mount
  // namespace, and a working folder of the host's tree would let `..` and
  // relative paths write past every mount of the sandbox. The command's own
  // `cd` (commandCd) then resolves its folder inside.
  '"$ns" -t "$h" -U -m -p -n -i -u --root --wd --preserve-credentials -- ' +
  '"$sp" --no-new-privs --bounding-set=-all --inh-caps=-all -- "$@" </dev/null &',
  "wait $!; c=$?",
  "empty",
  "exit $c",
].join("\n");

/**
 * The command's first step inside: a sandbox whose holder pid was reused by
 * another process (the sandbox died as the command started) would be some
 * other process's namespaces; only this sandbox has the marker, a read-only
 * mount no command can remove.
 */
export function markerCheck(marker: string): string {
  return `[ -e ${marker} ] || { echo "skiff: the session's sandbox is gone" >&2; exit 125; }; `;
}

/** The command's step into its working folder, resolved inside the sandbox. */
export function commandCd(cwd: string): string {
  return `cd -- '${cwd.replaceAll("'", "'\\''")}' || exit 126; `;
}

/** The cleaned folders: private to the sandbox, emptied between commands. */
const CLEANED = ["/tmp", "/dev/shm", "/run", "/var/run"];

/**
 * The entries of the cleaned folders that hold a mount of `bwrapArgs` (a
 * workspace under /tmp is bound at `/tmp/<name>/…`): `/tmp/<name>`. The
 * holder keeps them whole; emptying them would delete the user's files
 * through the bind.
 */
export function entriesHoldingMounts(bwrapArgs: readonly string[]): string[] {
  const entries = new Set<string>();
  for (const arg of bwrapArgs) {
    for (const folder of CLEANED) {
      if (!arg.startsWith(`${folder}/`)) continue;
      const name = arg.slice(folder.length + 1).split("/")[0];
      if (name) entries.add(`${folder}/${name}`);
    }
  }
  return [...entries];
}

/**
 * The folders of `CLEANED` that are the sandbox's own tmpfs in `bwrapArgs`:
 * made with `--tmpfs` and not bound over afterwards. A workspace that is
 * `/tmp` itself (or a folder above it) is bound over the private one, and
 * emptying that `/tmp` would empty the host's.
 */
export function foldersToClean(bwrapArgs: readonly string[]): string[] {
  const own = new Set<string>();
  const mounting = [
    "--bind",
    "--ro-bind",
    "--bind-try",
    "--ro-bind-try",
    "--dev-bind",
    "--dev-bind-try",
  ];
  for (let index = 0; index < bwrapArgs.length; index++) {
    const arg = bwrapArgs[index];
    if (arg === "--tmpfs" && CLEANED.includes(bwrapArgs[index + 1])) own.add(bwrapArgs[index + 1]);
    if (mounting.includes(arg)) {
      const target = bwrapArgs[index + 2] ?? "";
      for (const folder of own) {
        if (folder === target || folder.startsWith(target.endsWith("/") ? target : `${target}/`)) {
          own.delete(folder);
        }
      }
    }
  }
  return CLEANED.filter((folder) => own.has(folder));
}
