/**
 * The command line: the top layer, loaded from main.ts through `start.ts`.
 * `main.ts` reads `skiff run` and `skiff tool` in their plain forms itself
 * (src/boot/engine_options.ts) and hands any other command line to the
 * commander program (`program.ts`); each command's module loads when it runs
 * (`command_loader.ts`). One folder per larger command (`run/`, `chat/`,
 * `batch/`, `sessions/`); `exit_codes.ts` is the one table of exit codes,
 * `store_access.ts` the one way a command opens the session store,
 * `number_flags.ts` the one reading of a numeric flag, `approvals.ts` the
 * terminal's answer to an approval question.
 */
export { start } from "./start.ts";
export { main } from "./main.ts";
export { ERROR_EXIT_CODES, ExitCode, OUTCOME_EXIT_CODES } from "./exit_codes.ts";
