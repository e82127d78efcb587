/**
 * The one way a program is started: Deno's process API with the defaults a
 * helper wants (no terminal input, output piped), an environment that is
 * either inherited or given whole, an abort signal that stops the child (or,
 * for a child leading its own process group, the whole group), and one
 * error, `ProgramUnavailable`, when the program cannot be started at all.
 * Needs `--allow-run` for each program started.
 */

/** What becomes of one of the child's standard streams. */
export type Stdio = "piped" | "inherit" | "null";

export interface SpawnOptions {
  /** @default [] */
  args?: string[];
  /** @default this process's working folder */
  cwd?: string;
  /**
   * The child's whole environment: nothing of this process's is passed on.
   * Without it the child inherits this process's environment.
   */
  env?: Record<string, string>;
  /** @default "null" */
  stdin?: Stdio;
  /** @default "piped" */
  stdout?: Stdio;
  /** @default "piped" */
  stderr?: Stdio;
  /**
   * Start the child as the leader of a new session, so of a process group
   * of its own: a Ctrl-C at the terminal does not reach it, and aborting
   * `signal` stops every process in the group.
   * @default false
   */
  newGroup?: boolean;
  /** Aborting sends SIGTERM to the child (with `newGroup`, to its whole group). */
  signal?: AbortSignal;
}

export interface OutputOptions extends SpawnOptions {
  /** Written to the child's stdin, which then closes (`stdin` is then "piped"). */
  input?: Uint8Array;
}

/** How a child ended and what it wrote; a stream that was not piped reads as empty. */
export interface SpawnOutput {
  success: boolean;
  code: number;
  signal: Deno.Signal | null;
  stdout: Uint8Array;
  stderr: Uint8Array;
}

/**
 * A program that could not be started at all. `missing`: no such program,
 * or the working folder is missing or not a folder (Deno reports both
 * alike; its message, kept as `cause`, names `cwd` for the folder).
 * `not-permitted`: this process may not start it (`--allow-run`), or the
 * file may not be run.
 */
export class ProgramUnavailable extends Error {
  override readonly name = "ProgramUnavailable";
  readonly program: string;
  readonly reason: "missing" | "not-permitted";
  override readonly cause: Error;

  constructor(program: string, reason: "missing" | "not-permitted", cause: Error) {
    super(`${program} could not be started: ${cause.message}`, { cause });
    this.program = program;
    this.reason = reason;
    this.cause = cause;
  }
}

/** Starts `program`; throws `ProgramUnavailable` when it cannot be started. */
export function spawn(program: string, options: SpawnOptions = {}): Deno.ChildProcess {
  const { args = [], cwd, env, newGroup = false, signal } = options;
  if (newGroup) signal?.throwIfAborted();
  let child: Deno.ChildProcess;
  try {
    child = new Deno.Command(program, {
      args,
      cwd,
      ...(env ? { env, clearEnv: true } : {}),
      stdin: options.stdin ?? "null",
      stdout: options.stdout ?? "piped",
      stderr: options.stderr ?? "piped",
      detached: newGroup,
      // A group is stopped below; Deno's own signal reaches the child alone.
      signal: newGroup ? undefined : signal,
    }).spawn();
  } catch (error) {
    throw unavailable(program, error) ?? error;
  }
  if (newGroup && signal) stopGroupOnAbort(child, signal);
  return child;
}

/**
 * Runs `program` to its end and collects what it wrote. Throws
 * `ProgramUnavailable` when it cannot be started; a program that started
 * and failed answers with `success: false`.
 */
export async function output(program: string, options: OutputOptions = {}): Promise<SpawnOutput> {
  const { input, ...rest } = options;
  const child = spawn(program, input ? { ...rest, stdin: "piped" } : rest);
  // Written while the output is read: a child answering as it reads never blocks on a full pipe.
  const written = input ? writeAll(child.stdin, input) : Promise.resolve();
  const result = await child.output();
  await written;
  const empty = new Uint8Array();
  return {
    success: result.success,
    code: result.code,
    signal: result.signal,
    stdout: (options.stdout ?? "piped") === "piped" ? result.stdout : empty,
    stderr: (options.stderr ?? "piped") === "piped" ? result.stderr : empty,
  };
}

function unavailable(program: string, error: unknown): ProgramUnavailable | null {
  if (error instanceof Deno.errors.NotFound) {
    return new ProgramUnavailable(program, "missing", error);
  }
  if (error instanceof Deno.errors.NotCapable || error instanceof Deno.errors.PermissionDenied) {
    return new ProgramUnavailable(program, "not-permitted", error);
  }
  return null;
}

async function writeAll(stream: WritableStream<Uint8Array>, bytes: Uint8Array): Promise<void> {
  const writer = stream.getWriter();
  try {
    await writer.write(bytes);
    await writer.close();
  } catch {
    // The child stopped reading (it ended): its status and output say how.
  }
}

/**
 * SIGTERM to the group the child leads once `signal` aborts. Signalling a
 * group needs unrestricted `--allow-run`; without it the child alone is
 * signalled.
 */
function stopGroupOnAbort(child: Deno.ChildProcess, signal: AbortSignal): void {
  const onAbort = () => {
    try {
      Deno.kill(-child.pid, "SIGTERM");
    } catch {
      try {
        child.kill("SIGTERM");
      } catch {
        // Gone already.
      }
    }
  };
  signal.addEventListener("abort", onAbort, { once: true });
  child.status.finally(() => signal.removeEventListener("abort", onAbort)).catch(() => {});
}
