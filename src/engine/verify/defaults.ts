/**
 * The defaults of `--until`, apart from src/engine/verify/verify.ts so that the terminal side
 * can check `--max-cycles` without evaluating the checks themselves (the bash tool
 * and zod come with it).
 */

/** Attempts a run gets at its `--until`/`--done` check when `--max-cycles` is not given. */
export const DEFAULT_MAX_CYCLES = 3;
