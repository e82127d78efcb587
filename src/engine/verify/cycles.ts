/**
 * The cycles of a checked run (`--until`, `--done`): the agent's loop, then
 * the checks, then — while they fail and attempts are left — the loop again
 * with the failure as its prompt. Each cycle is its own prompt number, so
 * undo can take back one attempt. The engine supplies the loop and the
 * command runner; this file holds only the order of things.
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

export interface CycleHooks {
  /** One run of the agent's loop on `prompt`, filed as prompt `number`; `turnsBefore` this run. */
  runLoop(prompt: string, number: number, turnsBefore: number): Promise<LoopOutcome>;
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
  for (let cycle = 1;; cycle++) {
    const number = run.firstPrompt + cycle - 1;
    if (until) hooks.markCycle(number, cycle);
    const outcome = await hooks.runLoop(prompt, number, spent?.turns ?? 0);
    spent = spent ? addCycle(spent, outcome) : outcome;
    if (!until || outcome.kind !== "completed" || run.signal.aborted) break;
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
  }
  return { outcome: spent, verification };
}
