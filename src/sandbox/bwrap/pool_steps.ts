/**
 * The shell steps of the session-long bubblewrap sandbox (sandbox/pool/pool.ts):
 * the step that starts one sandbox and the holder that stays in it as pid 1
 * and runs each command. Plain strings, so a test can read what runs.
 *
 * Why each piece is there:
 * - The holder is pid 1 of the sandbox's pid namespace, so the kernel
 *   ignores any signal a command sends it that it has no handler for (and it
 *   ignores those a shell would catch: `SHIELDED`), and when it dies every
 *   process in the namespace dies. It is the system's POSIX shell (`/bin/sh`,
 *   quicker to fork than bash) copied
 *   into the sandbox as a file its own user cannot read (mode 0111): the
 *   kernel marks a process that runs an unreadable program as not dumpable,
 *   so a command cannot read or write its memory (`/proc/1/mem`), open its
 *   file descriptors (`/proc/1/fd/*`: the pipes to skiff) or its namespaces,
 *   and so cannot plant code in the one process that outlives each command.
 * - The holder starts each command itself (one fork and the command's
 *   shell: no program starts outside the sandbox), so the command is born
 *   inside with bwrap's settings: no capabilities, `no_new_privs`, the
 *   sandbox's namespaces, cgroup and environment. Its stdin is /dev/null,
 *   its stdout and stderr the holder's stderr (the output pipe); it holds no
 *   other descriptor of the holder's.
 * - When the command's shell exits, the holder kills every other process of
 *   the namespace (`kill -9 -1` from pid 1 reaches all of them, backgrounded,
 *   `setsid` or `nohup` alike) until none is left, then writes the request's
 *   end mark on the output pipe, and the command's status after it. The
 *   mark carries the request's token, a random name that reaches only the
 *   holder (on its stdin): a command can neither end its output early nor
 *   report a status.
 */
import { CLEAR_FINISHED_SANDBOXES } from "../limits.ts";

/**
 * Starts one sandbox. `$1` the process limit, `$2` the shell to copy in as
 * the holder, `$3` the one to copy instead when `$2` is a multi-call binary
 * (busybox, toybox: they run what their name says, and the holder's copy
 * has another name), then the bwrap argv. Where a `pids` cgroup can be written
 * (skiff as root, or a delegated cgroup v2) it makes one for the sandbox,
 * caps it at the limit and enters it, as one bwrap per command does as root
 * (`ROOT_PIDS_STEP` in limits.ts: there bwrap and its init count, here
 * bwrap and the holder); elsewhere the holder's own limit
 * applies (`nprocStep`, which the caller passes the holder when skiff is not
 * root). Then it execs bwrap, whose `--info-fd 4` reports the holder's pid
 * and whose holder prints `ready`.
 */
export const POOL_START_STEP = [
  "n=$1 s=$2 other=$3; shift 3",
  "for b in /sys/fs/cgroup/pids /sys/fs/cgroup; do",
  '  [ -w "$b/cgroup.procs" ] || continue',
  '  [ "$b" = /sys/fs/cgroup/pids ] || grep -qw pids "$b/cgroup.subtree_control" 2>/dev/null || continue',
  CLEAR_FINISHED_SANDBOXES,
  // Named after this shell's pid, which bwrap keeps (exec): a later start
  // removes the folder once this sandbox is gone.
  "  d=$b/skiff-pool-$$",
  '  if [ "$b" = /sys/fs/cgroup/pids ]; then f=tasks; else f=cgroup.procs; fi',
  '  mkdir -p "$d" && echo "$n" > "$d/pids.max" && echo $$ > "$d/$f" && break',
  '  echo "skiff: could not limit processes in $d" >&2; exit 126',
  "done",
  'case $(readlink -f "$(command -v "$s")" 2>/dev/null) in */busybox | */toybox) s=$other ;; esac',
  'case $s in /*) ;; *) s=$(command -v "$s") ;; esac',
  'exec 3<"$s" 4>&1',
  'exec "$@"',
].join("\n");

/**
 * Signals a holder ignores, and each command gets back as they were: a
 * holder that is the system's shell (dash) catches SIGINT while it waits
 * for a command, and pid 1 dies of a signal it catches.
 */
export const SHIELDED = "HUP INT QUIT TERM USR1 USR2 ALRM";

/**
 * The holder's reading of one `run <token>` request (its first line in
 * `$req`, `$nl` a newline): the script into `$c`, the token into `$t`. A
 * request cut short (skiff died while writing it) never runs: the holder
 * exits. Shared by the Landlock holder
 * (sandbox/landlock/pool_steps.ts), which speaks the same protocol.
 */
export const READ_RUN_REQUEST = [
  "    t=${req#run } c= f=1 e=",
  "    while IFS= read -r l; do",
  '      [ "$l" = . ] && { e=1; break; }',
  '      if [ -n "$f" ]; then c=${l#?} f=; else c=$c$nl${l#?}; fi',
  "    done",
  '    [ -n "$e" ] || exit 0',
].join("\n");

/**
 * The holder's script. `$0` is the holder's own file, `$1` the command
 * shell, `$2` a step it runs once first (the process limit when skiff is not
 * root: `nprocStep`, which every command inherits), `$3` the folders to
 * empty (`foldersToClean`), then the entries of those that hold a mount
 * (`entriesHoldingMounts`); all these are kept. It reads requests on its
 * stdin (a pipe from skiff):
 * - `run <token>`, the script's lines each after one `|`, then `.`: runs the
 *   script with the command shell, as described above; its output is framed
 *   on the output pipe by `<token><` and `<token>>`, and `<status>
 *   <strays>` and a newline follow the end mark (`strays` 1 when processes
 *   it started were still running after its shell exited);
 * - an empty line: empties the private temp folders for the next command
 *   (every process of the last one is gone by then), answered by `clean`.
 * End of input (skiff closed it or died) ends the holder and so the sandbox.
 */
export const HOLDER_SCRIPT = [
  "exec 3<&- 4>&-",
  'sh=$1 folders=$3; eval "$2"; shift 3; nl="',
  '"',
  `trap '' ${SHIELDED}`,
  "echo ready",
  "while IFS= read -r req; do",
  '  case $req in "run "*)',
  READ_RUN_REQUEST,
  "    printf '%s<' \"$t\" >&2",
  // The command's own shell sets these for itself, as when skiff starts it.
  // In the foreground: a shell without job control starts an asynchronous list with
  // SIGINT and SIGQUIT ignored, and no `trap -` in it gives them back.
  `    (trap - ${SHIELDED}; unset SHLVL PWD OLDPWD; exec "$sh" -c "$c" </dev/null 1>&2)`,
  "    x=$? o=0",
  "    while :; do",
  "      n=",
  "      for p in /proc/[0-9]*; do",
  '        [ "$p" = /proc/1 ] && continue',
  '        IFS= read -r st < "$p/stat" || continue',
  // "pid (command) state …": a zombie is dead already (this shell reaps it).
  "        case ${st##*) } in Z*) ;; *) n=1 ;; esac",
  "      done",
  '      [ -z "$n" ] && break',
  "      o=1; kill -9 -1",
  // Its own complaints (a process gone between the listing and the read)
  // would land in the command's output.
  "    done 2>/dev/null",
  '    printf \'%s>%s %s\\n\' "$t" "$x" "$o" >&2',
  "    continue ;;",
  "  esac",
  '  for d in $folders; do for f in "$d"/* "$d"/.[!.]* "$d"/..?*; do',
  // Kept: the holder, and every entry holding a mount of the sandbox (a
  // workspace or --add-dir under /tmp is the user's own folder, bound there).
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
 * One `run` request for the holder: `script` as lines after `|`, ended by
 * `.`. Null when the script holds a NUL byte, which no shell argument can
 * carry (the caller then starts it the usual way, which refuses it).
 */
export function runRequest(token: string, script: string): string | null {
  if (script.includes("\0")) return null;
  return `run ${token}\n${script.split("\n").map((line) => `|${line}`).join("\n")}\n.\n`;
}

/** The command's step into its working folder, resolved inside the sandbox. */
export function commandCd(cwd: string): string {
  // bwrap's --chdir leaves no OLDPWD; a `cd` sets one, which the command's environment must not gain.
  return `cd -- '${cwd.replaceAll("'", "'\\''")}' || exit 126; unset OLDPWD; `;
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
