/**
 * How a run ended, as the engine reports it. The front end chooses the exit
 * code of each outcome (src/cli/exit_codes.ts) and hands the table to the
 * engine in its spec, which writes the code into the `error` and
 * `session.completed` events (docs/events.md). Imports nothing.
 */

/** `denied`: the run completed, but a permission denial stopped something on the way. */
export type RunOutcome = "completed" | "denied" | "failed" | "provider" | "limit" | "interrupted";

/** The exit code of each outcome. */
export type OutcomeExitCodes = Readonly<Record<RunOutcome, number>>;
