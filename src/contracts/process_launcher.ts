/**
 * How a command is started: the sandbox implements it, bash, background
 * processes and MCP stdio servers use it. Imports nothing.
 */

/** Starts processes. The sandbox supplies the real one (bubblewrap, sandbox-exec). */
export interface ProcessLauncher {
  /**
   * Turn a shell command into the argv that runs it, wrapped in whatever
   * sandbox applies, plus the environment the child gets.
   */
  prepare(
    command: string,
    cwd: string,
    /**
     * `lifeline`: the caller will give it a pipe as stdin (see `lifeline` in
     * the result). `attach`: the caller can take a command the launcher
     * starts itself (see `attached`).
     */
    options?: { lifeline?: boolean; attach?: boolean },
  ): Promise<{
    argv: string[];
    env: Record<string, string>;
    /**
     * Set when the launcher took the lifeline: give it a pipe as stdin, write
     * one line, and keep it open; the command dies when the pipe closes.
     */
    lifeline?: boolean;
    /**
     * Set only when `attach` was asked: there is nothing to spawn (`argv` is
     * empty); calling it starts the command in a sandbox that is already up,
     * its stdout and stderr merged into `onOutput`.
     */
    attached?: (onOutput: (bytes: Uint8Array) => void) => AttachedRun;
  }>;
  /**
   * Set in workspace-write mode: call `before` just before a command starts
   * and the function it returns once the command has ended; that reverts
   * what the command changed among files that run code later (git hooks,
   * `.envrc`, CI…) and says what it did, or null (src/sandbox/guard/command_guard.ts).
   * The session's bubblewrap launcher sets it in every mode: `before`, called
   * in the same tick as `prepare`, leases the command a sandbox kept up for
   * the session, and the returned function gives it back
   * (src/sandbox/bwrap/session.ts).
   */
  guard?: { before(): () => string | null };
  /**
   * A command is coming: start, without waiting, what it will run in (a
   * sandbox kept up for the session), so that start overlaps the work
   * before the command (its policy check, the undo snapshot). Never throws.
   */
  warm?(): void;
}

/** A command a launcher started itself (`attached` above). */
export interface AttachedRun {
  /**
   * Resolves once the command's shell has exited, every process it started
   * is gone and all its output was delivered. `strayStopped`: processes it
   * left running were stopped.
   */
  done: Promise<{ code: number; strayStopped: boolean }>;
  /** Kills the command and every process it started at once; `done` then resolves (status 143). */
  stop(): void;
}
