/**
 * The last word on an error that escaped a command: a user-facing one
 * (src/contracts/errors.ts) is printed with its hint and exits with its
 * kind's code; anything else is a bug and says so. Every subcommand ends
 * here, so it is its own module (main.ts loads the subcommands).
 */
import { SkiffError } from "../contracts/errors.ts";
import { ERROR_EXIT_CODES, ExitCode } from "./exit_codes.ts";
import { printErrorLine } from "../ui/safe_print.ts";

/** Errors that escaped a command: say what happened and what to do; returns the exit code. */
export function reportFatal(error: unknown): number {
  // Whoever read our output went away (`skiff tool | head`): stop quietly.
  if (error instanceof Deno.errors.BrokenPipe) return ExitCode.interrupted;
  // Rebuilt as a SkiffError when it crossed the engine Worker (fromErrorData).
  if (error instanceof SkiffError) {
    // A message may quote a project's config or a server's output.
    printErrorLine(`skiff: ${error.message}`);
    if (error.hint) printErrorLine(error.hint);
    return ERROR_EXIT_CODES[error.kind];
  }
  printErrorLine(`skiff: internal error: ${error instanceof Error ? error.stack : String(error)}`);
  console.error("This is a bug in skiff; please report it with the command you ran.");
  return ExitCode.failed;
}
