/**
 * The user's mistake (a flag, a config value, a session id): thrown by the
 * engine and the CLI alike, printed without a stack; the CLI maps it to
 * exit 2 (src/cli/exit_codes.ts). Imports nothing.
 */

/** A user mistake on the command line: printed without a stack, exit 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}
