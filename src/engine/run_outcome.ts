/**
 * How a prompt's run ended, told the way docs/events.md promises: an `error`
 * event for anything but completion, then `session.completed` last. The
 * engine knows the outcome's kind; the exit code each kind gets is the front
 * end's table (src/cli/exit_codes.ts), handed in with the run request.
 */
import type { Denial, VerificationSummary } from "../contracts/events.ts";
import { checksFailedMessage } from "./verify/verify.ts";
import type { DoneFile } from "./verify/done_criteria.ts";
import { attributeFailure } from "./attribution.ts";
import type { LoopOutcome } from "./loop/loop.ts";
import type { Session, Store } from "../store/store.ts";
import type { Emit } from "./opened_session.ts";
import type { OutcomeKind } from "./types.ts";

export type ExitCodes = Readonly<Record<OutcomeKind, number>>;

export interface RunResult {
  outcome: OutcomeKind;
  /** The outcome's code in the table the request handed in. */
  exitCode: number;
  sessionId: string;
  text: string;
  /** A checked run's last check (`--until`, `--done`). */
  verification?: VerificationSummary;
  /** Criteria the plan agent proposed, measured once: the host writes them to .skiff/done.json. */
  done?: DoneFile;
  /** Where the host wrote them (src/host/start.ts `hostEngine`). */
  doneFile?: string;
}

export interface OutcomeReport {
  store: Store;
  session: Session;
  emit: Emit;
  exitCodes: ExitCodes;
  /** A top-level session says how to continue it; a subagent's goes through its parent. */
  resumable: boolean;
}

/** The kind of a loop's outcome: a completed run with denials counts as denied. */
export function outcomeKind(outcome: LoopOutcome, denials: Denial[]): OutcomeKind {
  switch (outcome.kind) {
    case "completed":
      return denials.length ? "denied" : "completed";
    case "provider_error":
      return "provider";
    default:
      return outcome.kind;
  }
}

/** Emits the run's closing events, stores its status, and returns its result. */
export function reportOutcome(
  report: OutcomeReport,
  outcome: LoopOutcome,
  denials: Denial[],
  verification?: VerificationSummary,
): RunResult {
  const { session, emit } = report;
  // The agent's word is not the result: checks that never passed fails the run.
  const checksFailed = outcome.kind === "completed" && verification && !verification.passed;
  const kind = checksFailed ? "failed" : outcomeKind(outcome, denials);
  const exitCode = report.exitCodes[kind];
  // Everything so far is stored: say how to pick the work up again.
  const resume = report.resumable ? `. Continue with: skiff run --session ${session.id} "…"` : "";
  const error = checksFailed
    ? {
      code: "verification",
      message: checksFailedMessage(verification, session.id, report.resumable),
    }
    : errorOf(outcome);
  if (error) {
    // A limit or a Ctrl-C leaves work to continue; a failing endpoint or model says its own next step.
    const hint = error.code === "limit" || error.code === "interrupted" ? resume : "";
    emit("error", { ...error, message: `${error.message}${hint}`, exit_code: exitCode });
  }
  // The stored status says how the run ended, as its exit code does: a run whose
  // calls were refused is "denied", not "completed" (`skiff sessions list`).
  report.store.updateSession(session.id, { status: storedStatus(kind, outcome) });
  emit("session.completed", {
    text: outcome.text,
    usage: outcome.usage,
    turns: outcome.turns,
    exit_code: exitCode,
    denials,
    // The same table classifies stored sessions (skiff sessions stats).
    ...(exitCode === 0 ? {} : { attribution: attributeFailure({ ...error, denials }) }),
    ...(verification ? { verification } : {}),
  });
  return {
    outcome: kind,
    exitCode,
    sessionId: session.id,
    text: outcome.text,
    ...(verification ? { verification } : {}),
  };
}

/** The session status a run's end is stored as: the outcome's kind, a failing endpoint "provider_error". */
function storedStatus(kind: OutcomeKind, outcome: LoopOutcome): string {
  return kind === "provider" ? outcome.kind : kind;
}

/** The `error` event a loop's outcome ends with (its message before the resume hint); none on completion. */
function errorOf(outcome: LoopOutcome): { code: string; message: string } | undefined {
  switch (outcome.kind) {
    case "limit":
      return { code: "limit", message: outcome.reason };
    case "interrupted":
      return { code: "interrupted", message: "interrupted" };
    case "provider_error":
      return { code: "provider", message: outcome.error.message };
    case "failed":
      return { code: "failed", message: outcome.message };
    default:
      return undefined;
  }
}
