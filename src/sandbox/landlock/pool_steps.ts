/**
 * The holder of the session-long Landlock sandbox (sandbox/landlock/session.ts): one
 * shell, started once through the exec step (sandbox/landlock/exec.ts) and so in a
 * Landlock domain with the command's ruleset, `no_new_privs` and no
 * capabilities, that runs each command of the session in that same domain.
 * It speaks the holder protocol of the bubblewrap pool (sandbox/bwrap/pool_steps.ts:
 * `run <token>`, the script's lines after `|`, `.`; an empty line asks for
 * `clean`), so one pool (sandbox/pool/pool.ts) drives both. A plain string, so a
 * test can read what runs.
 *
 * What stands in for what bubblewrap gives its holder:
 * - Not dumpable, as there: the exec step copies the shell to a file its own
 *   user cannot read (mode 0111, beside the session's temp folder, out of
 *   every command's write rights) and execs that copy, with no capability
 *   left that would let it read the file anyway. A command, running as the
 *   same user in the same domain, cannot read or write the holder's memory
 *   or open its descriptors (the pipe to skiff, where each command's token
 *   arrives).
 * - No pid namespace, so never `kill -1`: the exec step makes the holder a
 *   child subreaper, so every process a command leaves behind (backgrounded,
 *   `setsid`, its environment cleared or not) becomes the holder's child.
 *   When the command's shell exits, the holder kills its children but its
 *   two helpers, round after round until none is left, before it writes the
 *   end mark and the status: no process of one command is alive when the
 *   next starts.
 * - One process group: a POSIX shell cannot give a command a group of its
 *   own without a terminal, so commands share the holder's. The holder
 *   ignores the signals a command's `kill 0` sends it (`SHIELDED`), and
 *   each command gets them back as they were.
 * - No `--die-with-parent`: a helper of the holder reads skiff's pipe and
 *   passes the requests on. When the pipe ends (skiff closed it, or died) it
 *   kills every process carrying the session's mark (`SKIFF_COMMAND_MARK`,
 *   in the holder's environment and so in every command's), the holder
 *   included, even in the middle of a command. skiff runs the same sweep
 *   from outside to stop a holder.
 * - One temp folder for the session (the exec step's, `TMPDIR`) instead of a
 *   private `/tmp`: emptied between commands.
 */

import { READ_RUN_REQUEST, SHIELDED } from "../bwrap/pool_steps.ts";

/**
 * Kills every process carrying the mark `$1` but the caller's own shell, in
 * rounds (one may fork meanwhile; each stopped, then killed) until none is
 * found, and the holder (`$2`, its pid) last: what the holder's helper runs
 * when skiff's pipe ends, and what skiff runs (outside the sandbox) to stop
 * a holder with everything it started.
 */
export const MARK_SWEEP = [
  'IFS=" " read -r me _ < /proc/self/stat; i=0',
  'while [ "$i" -lt 100 ]; do',
  "  i=$((i+1)) l=",
  // grep says 2 when some process could not be read: whether it found one is its output.
  '  for f in $(grep -lsxzF "SKIFF_COMMAND_MARK=$1" /proc/[0-9]*/environ); do',
  '    q=${f#/proc/}; q=${q%/environ}; [ "$q" = "$me" ] || [ "$q" = "$2" ] || l="$l $q"',
  "  done",
  '  [ -n "$l" ] || break',
  // All stopped first, then killed: a shell that outlived its child would report it
  // ("Killed") into the output of the command being stopped.
  "  kill -STOP $l; kill -9 $l",
  "done 2>/dev/null",
  // The holder goes last: had it died with stopped processes left in its group, the
  // kernel would wake them (an orphaned group), and a shell would report its child.
  '[ "${2:-0}" -gt 1 ] 2>/dev/null && kill -9 "$2" 2>/dev/null',
].join("\n");

/**
 * The holder's script. `$0` is its own file, `$1` the command shell, `$2` a
 * step it runs once first (the process limit when skiff is not root:
 * `nprocStep`). The session's mark is in its environment (and so in every
 * command's); the temp folder it empties between commands is `TMPDIR`,
 * which the exec step sets to the folder it made (checked to be one). The
 * exec step made it a child subreaper: every process a command leaves
 * behind becomes its child.
 */
export const LANDLOCK_HOLDER_SCRIPT = [
  'sh=$1 tmp=$TMPDIR; eval "$2"; shift 2; nl="',
  '"',
  // The folder emptied between commands is the exec step's, never another.
  'case $tmp in /*/skiff-landlock-[0-9]*) ;; *) echo "skiff: no session temp folder" >&2; exit 126 ;; esac',
  // Commands share the holder's process group: a command's `kill 0` must not end it.
  `trap '' ${SHIELDED}`,
  "h=$$",
  // How it finds what a command left (a kernel without CONFIG_PROC_CHILDREN has no such
  // file): without it the holder does not start, and each command gets an exec step.
  '[ -r "/proc/$h/task/$h/children" ] || { echo "skiff: no /proc/<pid>/task/<pid>/children here" >&2; exit 126; }',
  "echo ready",
  `sweep() {\n${MARK_SWEEP}\n}`,
  // The output pipe is fd 3, written only by the loop's marks and by commands: what the
  // holder's shells say themselves (a job or a pipeline member killed by a signal is
  // reported on stderr) must never land in a command's output.
  "exec 3>&2 2>/dev/null",
  // The helper: its pid first, then skiff's requests; at their end, every marked process goes.
  '{ IFS=" " read -r me _ < /proc/self/stat; echo "$me"',
  '  while IFS= read -r l; do printf "%s\\n" "$l"; done',
  '  sweep "$SKIFF_COMMAND_MARK" "$h"; } 2>/dev/null 3>&- | {',
  "IFS= read -r helper",
  'IFS=" " read -r me _ < /proc/self/stat',
  "while IFS= read -r req; do",
  '  case $req in "run "*)',
  READ_RUN_REQUEST,
  "    printf '%s<' \"$t\" >&3",
  // In the foreground: a shell without job control starts an asynchronous list with
  // SIGINT and SIGQUIT ignored, and no `trap -` in it gives them back.
  `    (trap - ${SHIELDED}; unset SHLVL PWD OLDPWD; exec "$sh" -c "$c" </dev/null >&3 2>&3 3>&-)`,
  "    x=$? o=0",
  // What the command left behind is the holder's child now: killed until none is left.
  "    while :; do",
  "      n=",
  // One line with no newline at its end: read says 1, having read it.
  '      kids=; IFS= read -r kids < "/proc/$h/task/$h/children"',
  "      for p in $kids; do",
  '        [ "$p" = "$me" ] || [ "$p" = "$helper" ] && continue',
  '        IFS= read -r st < "/proc/$p/stat" || continue',
  '        case ${st##*) } in Z*) ;; *) n=1; kill -9 "$p" ;; esac',
  "      done",
  '      [ -z "$n" ] && break',
  "      o=1",
  "    done 2>/dev/null",
  '    printf \'%s>%s %s\\n\' "$t" "$x" "$o" >&3',
  "    continue ;;",
  "  esac",
  '  for f in "$tmp"/* "$tmp"/.[!.]* "$tmp"/..?*; do',
  '    [ -d "$f" ] && [ ! -L "$f" ] && chmod -R u+rwx -- "$f" 2>/dev/null',
  '    { [ -e "$f" ] || [ -L "$f" ]; } && rm -rf --one-file-system -- "$f" 2>/dev/null',
  "  done",
  "  echo clean",
  "done",
  "}",
].join("\n");
