/**
 * The checks a run must pass before its result counts (`--until`, `--done`):
 * when the agent says it is done, each check's command runs in the session's
 * sandbox, through the same launcher as the bash tool but not through the
 * permission rules (the user wrote it; `--done`'s come from the repository
 * and need trust or a rule first, src/engine/verify/done_criteria.ts). The agent's
 * background commands are stopped first. A failing check's output, cut as tool
 * output is and spilled whole to a file, is the agent's next message, for up
 * to `maxCycles` attempts. The agent's claim of success is never the result:
 * the checks are (docs/verification.md).
 */
import {
  addUsage,
  type VerificationCheck,
  type VerificationSummary,
} from "../../contracts/events.ts";
import type { LoopOutcome } from "../loop/loop.ts";
import { bashTool, MAX_TIMEOUT_MS } from "../../tools/process/bash.ts";
import { type BackgroundTable, type ToolContext, ToolError } from "../../tools/tool.ts";
import { DEFAULT_MAX_CYCLES } from "./defaults.ts";

/** One criterion: a command and what it must show. */
export interface VerifyCheck {
  name: string;
  command: string;
  /** The exit code it must end with. @default 0 */
  exitCode?: number;
  /** Text its output must contain, besides the exit code. */
  expects?: string;
  /**
   * Read from the repository (`.skiff/done.json`), not typed by the user:
   * runs only in a trusted project, or when the rules that judge the agent's
   * commands allow it (checked before the run starts).
   */
  fromProject?: boolean;
}

/** What a run is held to. */
export interface UntilChecks {
  checks: VerifyCheck[];
  /** Attempts the agent gets, its first included. @default 3 */
  maxCycles: number;
}

export { DEFAULT_MAX_CYCLES };

/**
 * The checks of a run request: `until` is a command (`--until 'npm test'`) or
 * a list of criteria (`--done`, a batch task's own); none, no checks.
 */
export function untilChecks(
  until: string | VerifyCheck[] | undefined,
  maxCycles = DEFAULT_MAX_CYCLES,
): UntilChecks | undefined {
  if (until === undefined) return undefined;
  const checks = typeof until === "string" ? [{ name: until, command: until }] : until;
  if (!checks.length) return undefined;
  return { checks, maxCycles: Math.max(1, Math.trunc(maxCycles)) };
}

/** How a command ran: what the bash tool reports, as data. */
export interface CommandRun {
  exitCode: number | null;
  /** As the model would read it: cut to its beginning and end, with the spill file named. */
  output: string;
  fullOutputPath?: string;
}

/** Runs `command` like the bash tool (sandboxed, spilled), without the rules and without undo snapshots. */
export async function runCheckCommand(command: string, ctx: ToolContext): Promise<CommandRun> {
  // A check's own writes (caches, reports) are not the agent's work: no undo snapshots.
  const context: ToolContext = { ...ctx, commandUndo: undefined };
  try {
    const result = await bashTool.execute({ command, timeout_ms: MAX_TIMEOUT_MS }, context);
    const metadata = result.metadata as { exitCode?: number; fullOutputPath?: string };
    return {
      exitCode: metadata.exitCode ?? null,
      output: result.output,
      fullOutputPath: metadata.fullOutputPath,
    };
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    const metadata = (error.metadata ?? {}) as {
      exitCode?: number;
      fullOutputPath?: string;
      cancelled?: boolean;
      timedOut?: boolean;
    };
    // Stopped (Ctrl-C, --max-time, its timeout): it did not end by itself.
    const stopped = metadata.cancelled || metadata.timedOut;
    return {
      exitCode: stopped ? null : metadata.exitCode ?? null,
      output: error.hint ? `${error.message}\n${error.hint}` : error.message,
      fullOutputPath: metadata.fullOutputPath,
    };
  }
}

/**
 * Stops the agent's background commands before its work is judged, and
 * waits until what they changed in protected paths is put back, so nothing
 * it started changes the workspace during the checks. The warning to give
 * when some were running; none when none were.
 */
export async function stopBackground(background: BackgroundTable): Promise<string | undefined> {
  const stopped = await background.stopAll();
  if (!stopped.length) return undefined;
  const named = stopped.map((command) => `\`${command.split("\n")[0].slice(0, 80)}\``);
  return `stopped the agent's background command${stopped.length === 1 ? "" : "s"} ` +
    `${named.join(", ")} before the checks ran, so nothing it started changes the workspace ` +
    "while the work is judged. A check that needs a server should start it itself.";
}

/** Runs every check once and says where the checks stand. */
export async function runChecks(
  until: UntilChecks,
  cycle: number,
  run: (command: string) => Promise<CommandRun>,
): Promise<{ summary: VerificationSummary; outputs: string[] }> {
  const checks: VerificationCheck[] = [];
  const outputs: string[] = [];
  for (const check of until.checks) {
    const ran = await run(check.command);
    checks.push(judge(check, ran));
    outputs.push(ran.output);
  }
  const leading = checks.find((check) => !check.passed) ?? checks[checks.length - 1];
  return {
    summary: {
      cycle,
      max_cycles: until.maxCycles,
      passed: checks.every((check) => check.passed),
      command: leading.command,
      exit_code: leading.exit_code,
      summary: leading.summary,
      ...(leading.output_path ? { output_path: leading.output_path } : {}),
      checks,
    },
    outputs,
  };
}

/** One check's verdict from how its command ran. */
export function judge(check: VerifyCheck, ran: CommandRun): VerificationCheck {
  const wanted = check.exitCode ?? 0;
  const passed = ran.exitCode === wanted &&
    (check.expects === undefined || ran.output.includes(check.expects));
  return {
    name: check.name,
    command: check.command,
    exit_code: ran.exitCode,
    passed,
    expected: `exit ${wanted}${
      check.expects === undefined ? "" : `, output containing "${check.expects}"`
    }`,
    summary: lastLines(ran.output, 5, 400),
    ...(ran.fullOutputPath ? { output_path: ran.fullOutputPath } : {}),
  };
}

/** The agent's next message after a failed cycle: what failed and its output. */
export function feedbackMessage(summary: VerificationSummary, outputs: string[]): string {
  const failed = summary.checks.flatMap((check, index) => check.passed ? [] : [{ check, index }]);
  const left = summary.max_cycles - summary.cycle;
  const parts = failed.map(({ check, index }) =>
    `\`${check.command}\` was to show ${check.expected}; it ended with ${exitText(check)}:\n\n` +
    outputs[index]
  );
  return [
    `You said you were done, but the check${failed.length === 1 ? "" : "s"} judging this work ` +
    `failed (cycle ${summary.cycle} of ${summary.max_cycles}; ${left} attempt${
      left === 1 ? "" : "s"
    } left).`,
    ...parts,
    "Fix the cause and say when you are done; the checks run again then. Do not change the checks themselves.",
  ].join("\n\n");
}

/** The run's closing message when its checks never passed. */
export function checksFailedMessage(
  summary: VerificationSummary,
  sessionId: string,
  resumable: boolean,
): string {
  const leading = summary.checks.find((check) => !check.passed) ?? summary.checks[0];
  const where = leading.output_path ? `; its full output is in ${leading.output_path}` : "";
  const retry = resumable
    ? ` To go on: skiff run --session ${sessionId} --until ${shellQuote(leading.command)} "…"` +
      ` (or raise --max-cycles); to drop the last attempt: skiff undo --cycle --session ${sessionId}.`
    : "";
  return `the agent said it was done, but \`${leading.command}\` still fails (${
    exitText(leading)
  }) after ${summary.cycle} cycle${summary.cycle === 1 ? "" : "s"}${where}.${retry}`;
}

/** `text` as one word for a POSIX shell. */
function shellQuote(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

function exitText(check: VerificationCheck): string {
  if (check.exit_code === null) return "it did not finish";
  return check.passed || !check.expected.includes("output containing")
    ? `exit ${check.exit_code}`
    : `exit ${check.exit_code}, without the expected output`;
}

/** The last `lines` non-empty lines of `text`, at most `chars` characters. */
function lastLines(text: string, lines: number, chars: number): string {
  const kept = text.split("\n").filter((line) => line.trim()).slice(-lines).join("\n");
  return kept.length > chars ? `…${kept.slice(-chars)}` : kept;
}

/**
 * The signal a check runs under: the prompt's (Ctrl-C) and its deadline
 * (`--max-time`), and the outcome a run cut by either ends with.
 */
export function checkSignal(interrupt: AbortSignal, deadline?: number): {
  signal: AbortSignal;
  outcome(spent: LoopOutcome): LoopOutcome | undefined;
  dispose(): void;
} {
  const timeUp = new AbortController();
  const timer = deadline === undefined
    ? undefined
    : setTimeout(() => timeUp.abort(), Math.min(Math.max(0, deadline - Date.now()), 2 ** 31 - 1));
  return {
    signal: AbortSignal.any([interrupt, timeUp.signal]),
    outcome(spent) {
      const { text, turns, usage } = spent;
      if (interrupt.aborted) return { kind: "interrupted", text, turns, usage };
      if (timeUp.signal.aborted) {
        return { kind: "limit", reason: "time limit reached (--max-time)", text, turns, usage };
      }
      return undefined;
    },
    // Only a timer that exists: `clearTimeout(undefined)` loads Deno's timers.
    dispose: () => {
      if (timer !== undefined) clearTimeout(timer);
    },
  };
}

/** One outcome for the whole run: the last cycle's, with every cycle's turns and usage. */
export function addCycle(before: LoopOutcome, next: LoopOutcome): LoopOutcome {
  const usage = { ...before.usage };
  addUsage(usage, next.usage);
  return { ...next, turns: before.turns + next.turns, usage };
}
