/** Exit codes, a public contract documented in docs/cli.md. */
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

// Thrown below the CLI too (app, engine), so it lives in src/contracts/.
export { UsageError } from "../contracts/usage_error.ts";
