/**
 * Signals to a process group from a thread that may not call `Deno.kill`:
 * it needs unrestricted `--allow-run`, which the engine's Worker does not
 * have (it may start only the launcher's programs, `sh` among them). The
 * shell's own `kill` reaches the group with no permission added (and its
 * reads of /proc tell a live member from a zombie). One `sh`
 * per thread is started at the first signal and kept: each signal is a line
 * on its stdin and its answer a line on its stdout, a pipe's round trip
 * instead of a program's start (docs/performance.md) after every
 * command. The helper ends when this process does (its stdin closes).
 */

import { type LineReader, lineReader } from "../../lib/line_reader.ts";
import { output, spawn } from "../../lib/spawn.ts";

/**
 * Reads requests, one a line, and answers each with 0 (yes) or 1 (no):
 * `k <pgid> <SIGNAL>` sends the signal to the group; `a <pgid>` tells
 * whether the group has a live member: SIGCONT reaches it (and resumes a
 * stopped one), and where /proc can be read one member is not a zombie — a
 * group of zombies is finished, though the kernel still counts it while
 * pid 1 is slow to reap orphans (as in some containers), and the engine's
 * Worker cannot read /proc itself.
 */
const HELPER = [
  "while read -r op p s; do",
  "  case $op in",
  '  k) kill -s "$s" -- "-$p" 2>/dev/null; echo $? ;;',
  "  a) r=1",
  '    if kill -s CONT -- "-$p" 2>/dev/null; then',
  "      r=0",
  "      if [ -r /proc/self/stat ]; then",
  "        r=1",
  "        for f in /proc/[0-9]*/stat; do",
  '          IFS= read -r l < "$f" || continue',
  // "pid (command) state ppid pgrp …": the command may hold spaces and parentheses.
  "          set -- ${l##*) }",
  '          [ "$3" = "$p" ] && [ "$1" != Z ] && [ "$1" != X ] && { r=0; break; }',
  "        done 2>/dev/null",
  "      fi",
  "    fi",
  "    echo $r ;;",
  "  *) echo 1 ;;",
  "  esac",
  "done",
].join("\n");

interface Helper {
  child: Deno.ChildProcess;
  writer: WritableStreamDefaultWriter<Uint8Array>;
  lines: LineReader;
}

let helper: Helper | null = null;
/** Signals go one at a time: each answer is the next line. */
let queue: Promise<unknown> = Promise.resolve();

/**
 * Sends `signal` to process group `pgid` through the thread's helper shell;
 * false when the group does not exist (or the helper cannot run, when a
 * one-off shell is tried instead).
 */
export function signalGroupBySh(pgid: number, signal: Deno.Signal): Promise<boolean> {
  if (!/^SIG[A-Z0-9]+$/.test(signal)) return Promise.resolve(false);
  return request(pgid, `k ${pgid} ${signal.replace(/^SIG/, "")}`, () => oneOff(pgid, signal));
}

/**
 * Whether group `pgid` has a live member (not a zombie), resuming any
 * stopped one, through the thread's helper shell.
 */
export function groupAliveBySh(pgid: number): Promise<boolean> {
  // Without the helper, the group's mere existence is what can be told.
  return request(pgid, `a ${pgid}`, () => oneOff(pgid, "SIGCONT"));
}

function request(pgid: number, line: string, fallback: () => Promise<boolean>): Promise<boolean> {
  if (!Number.isSafeInteger(pgid) || pgid <= 1) return Promise.resolve(false);
  const sent = queue.then(() => ask(line, fallback));
  queue = sent.catch(() => {});
  return sent;
}

async function ask(request: string, fallback: () => Promise<boolean>): Promise<boolean> {
  let current: Helper;
  try {
    current = helper ??= startHelper();
  } catch {
    return fallback();
  }
  // A pending answer keeps this thread alive; an idle helper does not.
  current.child.ref();
  try {
    await current.writer.write(new TextEncoder().encode(`${request}\n`));
    const line = await current.lines.next();
    if (line === null) throw new Error("the signal helper ended");
    return line === "0";
  } catch {
    // Gone (killed, or its pipe broke): the next signal starts another.
    if (helper === current) helper = null;
    current.child.kill("SIGKILL");
    return fallback();
  } finally {
    current.child.unref();
  }
}

function startHelper(): Helper {
  const child = spawn("sh", {
    args: ["-c", HELPER],
    env: { PATH: "/usr/bin:/bin" },
    stdin: "piped",
    stderr: "null",
  });
  child.unref();
  return {
    child,
    writer: child.stdin.getWriter(),
    lines: lineReader(child.stdout),
  };
}

/** One shell for one signal: where the helper could not start or broke. */
async function oneOff(pgid: number, signal: Deno.Signal): Promise<boolean> {
  try {
    const { success } = await output("sh", {
      args: ["-c", `kill -s ${signal.replace(/^SIG/, "")} -- -${pgid}`],
      env: { PATH: "/usr/bin:/bin" },
      stdout: "null",
      stderr: "null",
    });
    return success;
  } catch {
    return false;
  }
}
