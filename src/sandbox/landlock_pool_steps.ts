/**
 * The holder of the session-long Landlock sandbox (landlock_session.ts): one
 * shell, started once through the exec step (landlock_exec.ts) and so in a
 * Landlock domain with the command's ruleset, `no_new_privs` and no
 * capabilities, that runs each command of the session in that same domain.
 * It speaks the holder protocol of the bubblewrap pool (bwrap_pool_steps.ts:
 * `run <token>`, the script's lines after `|`, `.`; an empty line asks for
 * `clean`), so one pool (bwrap_pool.ts) drives both. A plain string, so a
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
 * - No pid namespace, so never `kill -1`: every command's processes carry
 *   the session's mark in their environment (`SKIFF_COMMAND_MARK`, as with
 *   one exec step per command), and each command starts in a session of its
 *   own (`setsid`) so that its `kill 0` reaches its own processes, not the
 *   holder. When its shell exits, the holder kills its process group, says
 *   whether any process was left there, writes the end mark and the status,
 *   and then kills every process still carrying the mark (one that called
 *   `setsid` left the group, not the mark) before it empties the temp folder
 *   and answers `clean`: no process of one command is alive when the next
 *   starts. The holder and its helpers never carry the mark.
 * - No `--die-with-parent`: a helper of the holder reads skiff's pipe and
 *   passes the requests on. When the pipe ends (skiff closed it, or died) it
 *   kills every marked process at once, even in the middle of a command,
 *   and the holder ends after it.
 * - One temp folder for the session (the exec step's, `TMPDIR`) instead of a
 *   private `/tmp`: emptied between commands.
 */

import { READ_RUN_REQUEST } from "./bwrap_pool_steps.ts";

/** Signals the holder ignores, and each command gets back as they were. */
const SHIELDED = "HUP INT QUIT TERM USR1 USR2 ALRM";

/**
 * Kills every process carrying the mark `$1` but the caller's own shell, in
 * rounds (one may fork meanwhile) until none is found: what the holder's
 * helper runs when skiff's pipe ends, and what skiff runs (outside the
 * sandbox) to stop a holder with everything it started.
 */
export const MARK_SWEEP = [
  'IFS=" " read -r me _ < /proc/self/stat; i=0',
  'while [ "$i" -lt 100 ]; do',
  "  i=$((i+1)) n=",
  // grep says 2 when some process could not be read: whether it found one is its output.
  '  for f in $(grep -lsxzF "SKIFF_COMMAND_MARK=$1" /proc/[0-9]*/environ); do',
  '    q=${f#/proc/}; q=${q%/environ}; [ "$q" = "$me" ] && continue',
  '    kill -9 "$q" && n=1',
  "  done",
  '  [ -n "$n" ] || break',
  "done 2>/dev/null",
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
  // The helper: its pid first, then skiff's requests; at their end, every marked process goes.
  `sweep() {\n${MARK_SWEEP}\n}`,
  '{ IFS=" " read -r me _ < /proc/self/stat; echo "$me"',
  '  while IFS= read -r l; do printf "%s\\n" "$l"; done',
  '  sweep "$SKIFF_COMMAND_MARK"; } | {',
  "IFS= read -r helper",
  'IFS=" " read -r me _ < /proc/self/stat',
  "while IFS= read -r req; do",
  '  case $req in "run "*)',
  READ_RUN_REQUEST,
  `    (trap - ${SHIELDED}; unset SHLVL PWD OLDPWD; exec "$sh" -c "$c" </dev/null 1>&2) &`,
  "    wait $!; x=$?; o=0",
  // What the command left behind is the holder's child now: killed until none is left.
  "    while :; do",
  "      n=",
  // One line with no newline at its end: read says 1, having read it.
  'kids=; IFS= read -r kids < "/proc/$h/task/$h/children"',
  "      for p in $kids; do",
  '        [ "$p" = "$me" ] || [ "$p" = "$helper" ] && continue',
  '        IFS= read -r st < "/proc/$p/stat" || continue',
  '        case ${st##*) } in Z*) ;; *) n=1; kill -9 "$p" ;; esac',
  "      done",
  '      [ -z "$n" ] && break',
  "      o=1",
  "    done 2>/dev/null",
  '    printf \'%s>%s %s\\n\' "$t" "$x" "$o" >&2',
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
