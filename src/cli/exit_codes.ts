/**
 * Exit codes, a public contract documented in docs/cli.md, and the only
 * tables from a run's outcome and an error's kind to their codes.
 */
import type { ErrorKind } from "../contracts/errors.ts";
import type { OutcomeKind } from "../engine/types.ts";

export const ExitCode = {
  ok: 0,
  /** The agent failed or gave up. */
  failed: 1,
  /** Usage or config error. */
  usage: 2,
  /** Stopped by a permission denial. */
  denied: 3,
  /** Provider unreachable or failing after retries. */
  provider: 4,
  /** A limit was hit (turns, time). */
  limit: 5,
  /** Interrupted (Ctrl-C, SIGTERM). */
  interrupted: 130,
} as const;

/** A run's exit code, by how it ended; handed to the engine with each prompt. */
export const OUTCOME_EXIT_CODES: Readonly<Record<OutcomeKind, number>> = {
  completed: ExitCode.ok,
  denied: ExitCode.denied,
  limit: ExitCode.limit,
  interrupted: ExitCode.interrupted,
  provider: ExitCode.provider,
  failed: ExitCode.failed,
};

/** A user-facing error's exit code, by its kind. */
export const ERROR_EXIT_CODES: Readonly<Record<ErrorKind, number>> = {
  usage: ExitCode.usage,
  config: ExitCode.usage,
  store: ExitCode.usage,
};

// Thrown below the CLI too (app, engine), so it lives in src/contracts/.
export { UsageError } from "../contracts/usage_error.ts";
