/**
 * The user's mistake (a flag, a config value, a session id): thrown by the
 * engine and the CLI alike, printed without a stack; the CLI maps its kind
 * to exit 2 (src/cli/exit_codes.ts).
 */
import { SkiffError } from "./errors.ts";

/** A user mistake on the command line: printed without a stack, exit 2. */
export class UsageError extends SkiffError {
  constructor(message: string, hint?: string) {
    super("usage", message, hint);
    this.name = "UsageError";
  }
}
