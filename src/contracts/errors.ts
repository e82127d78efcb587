/**
 * skiff's error family: errors written for the user, each with a kind (what
 * sort of mistake), a message (what went wrong) and an optional hint (what to
 * do next). Thrown anywhere, including inside the engine Worker; they cross
 * the Worker as plain data (`toErrorData`) and come back whole
 * (`fromErrorData`). The kind → exit code table is the CLI's alone
 * (src/cli/exit_codes.ts). Imports nothing.
 */

/** What sort of user-facing error: a flag or argument, a config file, the session store. */
export type ErrorKind = "usage" | "config" | "store";

export const ERROR_KINDS: readonly ErrorKind[] = ["usage", "config", "store"];

/** An error meant for the user: printed without a stack, its exit code chosen by its kind. */
export class SkiffError extends Error {
  constructor(
    readonly kind: ErrorKind,
    message: string,
    /** What to do next, printed on its own line after the message. */
    readonly hint?: string,
  ) {
    super(message);
    this.name = "SkiffError";
  }
}

/** An error as it crosses the Worker boundary: structured-clone safe. */
export interface ErrorData {
  name: string;
  message: string;
  stack?: string;
  /** Set for a SkiffError. */
  kind?: ErrorKind;
  hint?: string;
}

/** Anything thrown, as plain data. */
export function toErrorData(thrown: unknown): ErrorData {
  const error = thrown instanceof Error ? thrown : new Error(String(thrown));
  const data: ErrorData = { name: error.name, message: error.message, stack: error.stack };
  if (error instanceof SkiffError) {
    data.kind = error.kind;
    if (error.hint !== undefined) data.hint = error.hint;
  }
  return data;
}

/** Plain data back into an error: a SkiffError of its kind, or an Error with its name. */
export function fromErrorData(data: ErrorData): Error {
  const error = data.kind && ERROR_KINDS.includes(data.kind)
    ? new SkiffError(data.kind, data.message, data.hint)
    : new Error(data.message);
  error.name = data.name;
  if (data.stack) error.stack = data.stack;
  return error;
}
