/**
 * The cycles of a run: the agent's loop, then its Stop hooks, then the
 * checks (`--until`, `--done`); while a Stop hook blocks or a check fails
 * (and continuations or attempts are left), the loop again with the hook's
 * reason or the failure as its prompt. Each loop is its own prompt number,
 * so undo can take back one attempt. The engine supplies the loop, the
 * hooks and the command runner; this file holds only the order of things.
 */
import type { VerificationSummary } from "../../contracts/events.ts";
import type { LoopOutcome } from "../loop/loop.ts";
import {
  addCycle,
  checkSignal,
  type CommandRun,
  feedbackMessage,
  runChecks,
  type UntilChecks,
} from "./verify.ts";

/**
 * Stop hook blocks in a row that send the agent back to work; one more
 * ends the run. The figure Claude Code uses, so hooks written for it see
 * the same bound.
 */
export const MAX_STOP_CONTINUATIONS = 8;

export interface CycleHooks {
  /**
   * One run of the agent's loop on `prompt`, filed as prompt `number`;
   * `turnsBefore` this run; `turnsCounted` of them belong to this attempt
   * (a Stop hook's continuation) and count against `--max-turns`.
   */
  runLoop(
    prompt: string,
    number: number,
    turnsBefore: number,
    turnsCounted: number,
  ): Promise<LoopOutcome>;
  /** Prompt `number` is attempt `cycle` of this run (kept for undo). */
  markCycle(number: number, cycle: number): void;
  /** A check's command, sandboxed; `callId` names its spilled output. */
  runCommand(command: string, callId: string, signal: AbortSignal): Promise<CommandRun>;
  /** A check ran (the `verification.completed` event). */
  checked(summary: VerificationSummary): void;
  /**
   * Before the checks: the agent's background commands stopped and what they
   * changed in protected paths put back, so nothing it started can change
   * the workspace (a check, a protected test) while the work is judged.
   */
  beforeChecks(): Promise<void>;
  /**
   * The Stop hooks, once a loop has ended (absent: the session has none, or
   * it is a subagent's). `active`: this loop was itself a Stop hook's
   * continuation; `signal` stops the hooks (Ctrl-C, `--max-time`). Returns
   * the first block's reason, or undefined.
   */
  stopHooks?(active: boolean, signal: AbortSignal): Promise<string | undefined>;
  /** What a Stop hook's block did (sent the agent back, or not obeyed after a limit): shown. */
  stopNote?(message: string): void;
}

export interface CycleRun {
  until?: UntilChecks;
  /** The prompt number of the first cycle. */
  firstPrompt: number;
  prompt: string;
  /** Ctrl-C of this prompt. */
  signal: AbortSignal;
  /** Epoch ms (`--max-time`). */
  deadline?: number;
}

/** Runs the cycles; the outcome covers all of them, with the last check's verdict. */
export async function runCycles(
  run: CycleRun,
  hooks: CycleHooks,
): Promise<{ outcome: LoopOutcome; verification?: VerificationSummary }> {
  const { until } = run;
  let prompt = run.prompt;
  let spent: LoopOutcome | undefined;
  let verification: VerificationSummary | undefined;
  let cycle = 1;
  // Stop hook continuations in a row, and the turns of this attempt before the current loop.
  let continuations = 0;
  let attemptTurns = 0;
  for (let number = run.firstPrompt;; number++) {
    const attempt = number - run.firstPrompt + 1;
    if (until || attempt > 1) hooks.markCycle(number, attempt);
    const outcome = await hooks.runLoop(prompt, number, spent?.turns ?? 0, attemptTurns);
    spent = spent ? addCycle(spent, outcome) : outcome;
    attemptTurns += outcome.turns;
    // A Ctrl-C ends the run: no Stop hook runs, so none can restart it.
    if (run.signal.aborted || outcome.kind === "interrupted") break;
    const step = await stopStep(run, hooks, outcome, spent, continuations);
    if (step.next === "end") {
      spent = step.spent;
      break;
    }
    if (step.next === "again") {
      continuations++;
      hooks.stopNote?.(
        `a Stop hook sent the agent back to work (${continuations} of at most ` +
          `${MAX_STOP_CONTINUATIONS} in a row): ${step.reason}`,
      );
      prompt = `Stop hook feedback:\n${step.reason}`;
      continue;
    }
    continuations = 0;
    if (!until || outcome.kind !== "completed") break;
    await hooks.beforeChecks();
    let check = 0;
    const stop = checkSignal(run.signal, run.deadline);
    const result = await runChecks(
      until,
      cycle,
      (command) => hooks.runCommand(command, `verify_${number}_${++check}`, stop.signal),
    ).finally(() => stop.dispose());
    verification = result.summary;
    hooks.checked(verification);
    // A Ctrl-C or --max-time that cut the check ends the run as it would the loop.
    const cut = stop.outcome(spent);
    if (cut) spent = cut;
    if (cut || verification.passed || cycle >= until.maxCycles) break;
    prompt = feedbackMessage(verification, result.outputs);
    cycle++;
    attemptTurns = 0;
  }
  return { outcome: spent, verification };
}

/** What the Stop hooks make of a loop that ended: go on to the checks, loop again, or end the run. */
type StopStep =
  | { next: "checks" }
  | { next: "again"; reason: string }
  | { next: "end"; spent: LoopOutcome };

/**
 * Runs the Stop hooks after a loop (`outcome`; `spent`: the run so far),
 * `continuations` of them in a row already. A block sends a completed loop
 * back to work while continuations are left; a run that stopped at a limit
 * still runs its hooks, which are told, not obeyed; a Ctrl-C or
 * `--max-time` that cuts them ends the run as it would the loop.
 */
async function stopStep(
  run: CycleRun,
  hooks: CycleHooks,
  outcome: LoopOutcome,
  spent: LoopOutcome,
  continuations: number,
): Promise<StopStep> {
  if (!hooks.stopHooks) return { next: "checks" };
  const stop = checkSignal(run.signal, outcome.kind === "completed" ? run.deadline : undefined);
  const block = await hooks.stopHooks(continuations > 0, stop.signal).finally(() => stop.dispose());
  const cut = stop.outcome(spent);
  if (cut) return { next: "end", spent: outcome.kind === "completed" ? cut : spent };
  if (block === undefined) return { next: "checks" };
  if (outcome.kind !== "completed") {
    hooks.stopNote?.(
      `a Stop hook asked the run to go on (${block}), but the run had already stopped: ` +
        stopCause(outcome),
    );
    return { next: "end", spent };
  }
  if (continuations >= MAX_STOP_CONTINUATIONS) {
    return { next: "end", spent: { ...spent, kind: "failed", message: stopCapMessage(block) } };
  }
  return { next: "again", reason: block };
}

/** Why a loop ended without completing, for the note on a Stop block it cannot obey. */
function stopCause(outcome: LoopOutcome): string {
  switch (outcome.kind) {
    case "limit":
      return outcome.reason;
    case "failed":
      return outcome.message;
    case "provider_error":
      return outcome.error.message;
    default:
      return outcome.kind;
  }
}

/** The end of a run whose Stop hook kept blocking. */
function stopCapMessage(reason: string): string {
  return `a Stop hook still asks the run to go on after ${MAX_STOP_CONTINUATIONS} ` +
    `continuations in a row (${reason}); skiff ended the run there. Check what the hook ` +
    "waits for: it gets stop_hook_active: true once it has sent the agent back";
}
