/**
 * Runs one shell command as the leader of its own process group, so stopping
 * it stops everything it started: `sh -c 'sleep 100 & sleep 100'` leaves no
 * orphan behind. Used by bash (foreground) and the background table. Needs
 * `--allow-run` for the launcher's program.
 */
import type { ProcessLauncher } from "./tool.ts";

/** How long a group gets between SIGTERM and SIGKILL. */
export const DEFAULT_KILL_GRACE_MS = 2_000;

/**
 * After the shell exits, how long its output pipes may stay open. A pipe still
 * open after that is held by a process the command left running; it is
 * stopped, since nothing would ever stop it otherwise.
 */
const DRAIN_MS = 250;

export interface GroupExit {
  code: number;
  signal: Deno.Signal | null;
  /** Processes the command left running after the shell exited were stopped. */
  strayStopped: boolean;
}

export interface RunningGroup {
  pid: number;
  /** Resolves once the shell has exited and its output is fully read. */
  done: Promise<GroupExit>;
  /** SIGTERM to the group, SIGKILL after `graceMs`; resolves when done. */
  stop(graceMs?: number): Promise<GroupExit>;
}

export interface StartOptions {
  launcher: ProcessLauncher;
  command: string;
  cwd: string;
  /** Receives stdout and stderr text, merged in arrival order. */
  onOutput(text: string): void;
  /** @default 2000 */
  killGraceMs?: number;
}

export async function startGroup(options: StartOptions): Promise<RunningGroup> {
  const { argv, env } = await options.launcher.prepare(options.command, options.cwd);
  const child = new Deno.Command(argv[0], {
    args: argv.slice(1),
    cwd: options.cwd,
    env,
    clearEnv: true,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
    detached: true,
  }).spawn();
  const pid = child.pid;
  const pumps = Promise.all([
    pump(child.stdout, options.onOutput),
    pump(child.stderr, options.onOutput),
  ]);

  let strayStopped = false;
  const done = (async (): Promise<GroupExit> => {
    const status = await child.status;
    const drained = await settlesWithin(pumps, DRAIN_MS);
    if (!drained) {
      strayStopped = true;
      await killGroup(pid, options.killGraceMs ?? DEFAULT_KILL_GRACE_MS, pumps);
      await pumps;
    }
    return { code: status.code, signal: status.signal, strayStopped };
  })();

  let stopping: Promise<GroupExit> | null = null;
  const stop = (graceMs = options.killGraceMs ?? DEFAULT_KILL_GRACE_MS) => {
    stopping ??= killGroup(pid, graceMs, done).then(() => done);
    return stopping;
  };
  return { pid, done, stop };
}

/**
 * SIGTERM to the whole group, then SIGKILL once `graceMs` passed or `settled`
 * resolved — always, because the shell exiting says nothing about the
 * children it started.
 */
async function killGroup(pid: number, graceMs: number, settled: Promise<unknown>): Promise<void> {
  signalGroup(pid, "SIGTERM");
  await settlesWithin(settled, graceMs);
  signalGroup(pid, "SIGKILL");
}

function signalGroup(pid: number, signal: Deno.Signal): void {
  try {
    Deno.kill(-pid, signal);
  } catch {
    // The group is already gone.
  }
}

async function pump(stream: ReadableStream<Uint8Array>, onOutput: (text: string) => void) {
  const decoder = new TextDecoder();
  try {
    for await (const chunk of stream) {
      const text = decoder.decode(chunk, { stream: true });
      if (text) onOutput(text);
    }
  } catch {
    // A pipe torn down by a kill ends the output; nothing more to read.
  }
  const rest = decoder.decode();
  if (rest) onOutput(rest);
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
