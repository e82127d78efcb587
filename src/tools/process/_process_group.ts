/**
 * Runs one shell command as the leader of its own process group, so stopping
 * it stops everything it started: `sh -c 'sleep 100 & sleep 100'` leaves no
 * orphan behind. Used by bash (foreground) and the background table. Needs
 * `--allow-run` for the launcher's program.
 *
 * Whatever is still in the group when the shell exits was left behind by the
 * command (`server &`, `nohup job > log &`); it is stopped then, since nothing
 * would ever stop it otherwise. Long-lived processes belong in the background
 * table, whose entries live until `stop`.
 */
import type { AttachedRun } from "../../contracts/process_launcher.ts";
import { SETSID_PATHS } from "../../sandbox/shell.ts";
import { ProgramUnavailable, spawn, type SpawnOptions } from "../../lib/spawn.ts";
import { groupAliveBySh, signalGroupBySh } from "./_group_signals.ts";
import type { ProcessLauncher } from "../tool.ts";

/** How long a group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * After the group is gone, how long the output pipes may stay open. A pipe
 * still open then is held by a process that left the group (it called
 * setsid); its output is abandoned rather than waited for.
 */
const DRAIN_MS = 250;

/** How often a dying group is checked for survivors. */
const POLL_MS = 20;

export interface GroupExit {
  code: number;
  signal: Deno.Signal | null;
  /** Processes the command left running after the shell exited were stopped. */
  strayStopped: boolean;
}

export interface RunningGroup {
  /** Resolves once the shell has exited, its group is gone and its output read. */
  done: Promise<GroupExit>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when done. */
  stop(graceMs?: number): Promise<GroupExit>;
}

export interface StartOptions {
  launcher: ProcessLauncher;
  command: string;
  cwd: string;
  /**
   * Receives stdout and stderr text, merged in the order the command wrote
   * it, with the bytes it was decoded from (a chunk may carry bytes and no
   * text yet, or, at the end, text and no bytes).
   */
  onOutput(text: string, bytes: Uint8Array): void;
  /** Time between SIGTERM and SIGKILL. @default 2000 */
  killGraceMs?: number;
}

export async function startGroup(options: StartOptions): Promise<RunningGroup> {
  const grace = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS;
  // Two pipes cannot keep the order in which stdout and stderr were written;
  // one pipe can. The redirect shares the first line, so the command's line
  // numbers in the shell's messages stay as the model wrote them.
  const merged = `exec 2>&1; ${options.command}`;
  const { argv, env, lifeline: wantsLifeline, attached } = await options.launcher.prepare(
    merged,
    options.cwd,
    { lifeline: true, attach: true },
  );
  if (attached) return attachedGroup(attached, options.onOutput);
  const child = spawnLeader(argv, {
    cwd: options.cwd,
    env,
    // The lifeline (see LIFELINE_STEP in sandbox/bwrap/bwrap.ts): one line says
    // skiff is here; the pipe closing when skiff dies stops the sandbox.
    stdin: wantsLifeline ? "piped" : "null",
  });
  const pid = child.pid;
  const lifeline = wantsLifeline ? child.stdin.getWriter() : null;
  lifeline?.write(new TextEncoder().encode("\n")).catch(() => {});
  const stdout = pump(child.stdout, options.onOutput);
  const stderr = pump(child.stderr, options.onOutput);
  const pumps = Promise.all([stdout.finished, stderr.finished]);

  let stopRequested = false;
  const done = (async (): Promise<GroupExit> => {
    const status = await child.status;
    let strayStopped = false;
    if (!stopRequested && await groupAlive(pid)) {
      strayStopped = true;
      await killGroup(pid, grace);
    }
    if (!(await settlesWithin(pumps, DRAIN_MS))) {
      await Promise.all([stdout.abandon(), stderr.abandon()]);
    }
    await lifeline?.close().catch(() => {});
    return { code: status.code, signal: status.signal, strayStopped };
  })();

  let stopping: Promise<GroupExit> | null = null;
  const stop = (graceMs = grace) => {
    stopRequested = true;
    stopping ??= killGroup(pid, graceMs).then(() => done);
    return stopping;
  };
  return { done, stop };
}

/** The `setsid` that worked in this thread; null once none did (or not Linux). */
let setsidProgram: string | null | undefined = Deno.build.os === "linux" ? undefined : null;

/** The `setsid` this thread starts commands through; null without one; undefined before the first. */
export function sessionLeaderProgram(): string | null | undefined {
  return setsidProgram;
}

/**
 * Spawns `argv` as the leader of a new session (so of its own process group,
 * with no terminal). Deno's `detached` does that with a fork of this whole
 * process, whose cost grows with its memory (docs/performance.md), and the
 * engine's is large. Through the `setsid` program Deno spawns without a fork of
 * its own (the child, not a group leader, makes its session and execs the
 * command: its pid stays the group's); `detached` stays where there is none.
 */
function spawnLeader(argv: string[], options: SpawnOptions): Deno.ChildProcess {
  for (const program of setsidProgram === undefined ? SETSID_PATHS : [setsidProgram ?? ""]) {
    if (!program) break;
    try {
      const child = spawn(program, { ...options, args: argv });
      setsidProgram = program;
      return child;
    } catch (error) {
      // Not there, or not a program this thread may start: the next, or `newGroup`.
      if (!(error instanceof ProgramUnavailable)) throw error;
      // A working folder that is no folder fails the same way: `newGroup` says so below.
    }
  }
  const child = spawn(argv[0], { ...options, args: argv.slice(1), newGroup: true });
  // Started this way (so the folder was fine): no `setsid` here to try again.
  setsidProgram ??= null;
  return child;
}

/**
 * A command the launcher started itself (the session sandbox's holder runs
 * it inside): no process here to signal; stopping it kills it and everything
 * it started at once, as the pooled path always did.
 */
function attachedGroup(
  attached: (onOutput: (bytes: Uint8Array) => void) => AttachedRun,
  onOutput: (text: string, bytes: Uint8Array) => void,
): RunningGroup {
  const decoder = new TextDecoder();
  const run = attached((bytes) => {
    const text = decoder.decode(bytes, { stream: true });
    if (text || bytes.length) onOutput(text, bytes);
  });
  let stopRequested = false;
  const done = run.done.then((exit): GroupExit => {
    const rest = decoder.decode();
    if (rest) onOutput(rest, new Uint8Array());
    return { code: exit.code, signal: null, strayStopped: exit.strayStopped && !stopRequested };
  });
  return {
    done,
    stop: () => {
      stopRequested = true;
      run.stop();
      return done;
    },
  };
}

/**
 * SIGTERM to the whole group; SIGKILL to whatever is left once the group is
 * empty or `graceMs` has passed.
 */
async function killGroup(pid: number, graceMs: number): Promise<void> {
  if (!(await signalGroup(pid, "SIGTERM"))) return;
  const deadline = Date.now() + graceMs;
  while (Date.now() < deadline && await groupAlive(pid)) {
    await new Promise((resolve) => setTimeout(resolve, POLL_MS));
  }
  await signalGroup(pid, "SIGKILL");
}

/**
 * Whether a live process is still in the group. A signal (SIGCONT harms no
 * one) tells whether the group exists at all; where /proc can be read it also
 * tells zombies apart, which matters where pid 1 is slow to reap orphans (as
 * in some containers) — a group of zombies is finished.
 */
async function groupAlive(pid: number): Promise<boolean> {
  try {
    Deno.kill(-pid, "SIGCONT");
  } catch (error) {
    // The engine's Worker: its helper shell signals and reads /proc for it.
    if (error instanceof Deno.errors.NotCapable) return await groupAliveBySh(pid);
    return false;
  }
  return liveMembersInProc(pid) ?? true;
}

/** true/false from /proc on Linux; null where it cannot be read. */
function liveMembersInProc(pgid: number): boolean | null {
  if (Deno.build.os !== "linux") return null;
  try {
    for (const entry of Deno.readDirSync("/proc")) {
      if (!/^\d+$/.test(entry.name)) continue;
      let stat: string;
      try {
        stat = Deno.readTextFileSync(`/proc/${entry.name}/stat`);
      } catch {
        continue; // Gone meanwhile.
      }
      // "pid (command) state ppid pgrp …"; the command may hold spaces and parentheses.
      const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (Number(fields[2]) === pgid && fields[0] !== "Z" && fields[0] !== "X") return true;
    }
    return false;
  } catch {
    return null;
  }
}

/**
 * False when the group no longer exists. `Deno.kill` needs unrestricted
 * `--allow-run`, which the engine's Worker does not have: there the shell's
 * own `kill` does it (_group_signals.ts).
 */
function signalGroup(pid: number, signal: Deno.Signal): Promise<boolean> {
  try {
    Deno.kill(-pid, signal);
    return Promise.resolve(true);
  } catch (error) {
    if (error instanceof Deno.errors.NotCapable) return signalGroupBySh(pid, signal);
    return Promise.resolve(false);
  }
}

function pump(
  stream: ReadableStream<Uint8Array>,
  onOutput: (text: string, bytes: Uint8Array) => void,
) {
  const reader = stream.getReader();
  const decoder = new TextDecoder();
  const finished = (async () => {
    try {
      for (;;) {
        const { done, value } = await reader.read();
        if (done) break;
        const text = decoder.decode(value, { stream: true });
        if (text || value.length) onOutput(text, value);
      }
    } catch {
      // A pipe torn down by a kill, or abandoned: the output ends here.
    }
    const rest = decoder.decode();
    if (rest) onOutput(rest, new Uint8Array());
  })();
  const abandon = async () => {
    await reader.cancel().catch(() => {});
    await finished;
  };
  return { finished, abandon };
}

/** True when `promise` settles within `ms`; the timer never outlives the answer. */
export function settlesWithin(promise: Promise<unknown>, ms: number): Promise<boolean> {
  return new Promise((resolve) => {
    const timer = setTimeout(() => resolve(false), ms);
    const settle = () => {
      clearTimeout(timer);
      resolve(true);
    };
    promise.then(settle, settle);
  });
}
