/**
 * `skiff run`'s verification flags (docs/verification.md): `--until` and
 * `--done` (the checks, through RunRequest.until), `--max-cycles`, and
 * `--protect` (paths the agent may not change this run). Parsing is kept
 * apart from the run so it can be checked before anything is spent.
 */
import { codePathProblem } from "../../sandbox/code_paths.ts";
import type { EngineSpec } from "../../engine/types.ts";
import { readDoneChecks } from "../../engine/verify/done_criteria.ts";
import type { VerifyCheck } from "../../engine/verify/verify.ts";
import { DEFAULT_MAX_CYCLES } from "../../engine/verify/defaults.ts";
import { UsageError } from "../exit_codes.ts";
import { numberFlag } from "../number_flags.ts";

export interface UntilFlags {
  until?: string;
  maxCycles?: string;
  done?: boolean;
  protect?: string[];
}

/** The run request's until from the flags; undefined until: no until. */
export function untilFromFlags(
  flags: UntilFlags,
  workspace: string,
): { until?: string | VerifyCheck[]; maxCycles: number } {
  if (flags.until !== undefined && flags.done) {
    throw new UsageError("use either --until '<command>' or --done, not both.");
  }
  if (flags.until !== undefined && !flags.until.trim()) {
    throw new UsageError("--until needs a command, such as --until 'npm test'.");
  }
  let maxCycles = DEFAULT_MAX_CYCLES;
  if (flags.maxCycles !== undefined) {
    if (flags.until === undefined && !flags.done) {
      throw new UsageError("--max-cycles counts attempts at a check: give --until or --done too.");
    }
    maxCycles = numberFlag("--max-cycles", flags.maxCycles)!;
  }
  if (!flags.done) return { until: flags.until, maxCycles };
  try {
    return { until: readDoneChecks(workspace), maxCycles };
  } catch (error) {
    throw new UsageError((error as Error).message);
  }
}

/** `--protect` patterns, checked like config `sandbox.protect`; a bad one is a usage error. */
export function protectPatterns(patterns: readonly string[] = []): string[] {
  for (const pattern of patterns) {
    const problem = codePathProblem(pattern);
    if (problem) throw new UsageError(`--protect ${problem}.`);
  }
  return [...new Set(patterns)];
}

/**
 * Protects `patterns` for this run with the two existing mechanisms: a deny
 * rule for the file tools (the pattern at the workspace root and below any
 * folder, as `sandbox.protect` matches), and `sandbox.protect`, whose command
 * guard puts back what a command changed there and reports it refused.
 */
export function applyProtect(
  spec: Pick<EngineSpec, "sandbox" | "flags">,
  patterns: readonly string[],
): void {
  if (!patterns.length) return;
  spec.sandbox = {
    ...spec.sandbox,
    protect: [...new Set([...(spec.sandbox.protect ?? []), ...patterns])],
  };
  const rules = patterns.flatMap((pattern) => [`edit(${pattern})`, `edit(*/${pattern})`]);
  spec.flags = { ...spec.flags, deny: [...spec.flags.deny, ...rules] };
}
