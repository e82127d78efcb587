/**
 * Who answers when the rule table says "ask". The interface is one method;
 * the headless broker refuses and records why, `--yes` approves (asks only:
 * a deny never reaches a broker), and the interactive one prompts a person.
 */
import type { Denial } from "../contracts/events.ts";
import type { Access } from "../contracts/tool_call.ts";
import type { Decision } from "./decision.ts";
import type { AlwaysRule } from "./always.ts";
import { type AllowHint, shellLine } from "./hints.ts";

/**
 * "interrupt": the person pressed Ctrl-C (or Esc) at the question. The call
 * does not run, is not counted as a refusal, and the run stops (exit 130).
 * `{ deny: reason }`: a refusal with the person's words for the model. Only
 * `approves()` says whether an answer lets a call run: an answer that is not
 * one of the three yeses (an object among them) is a no.
 */
export type ApprovalAnswer =
  | "once"
  | "always"
  | "always-here"
  | "deny"
  | "interrupt"
  | { deny: string };

/** True for the three yeses alone; every other answer, whatever its shape, refuses. */
export function approves(answer: ApprovalAnswer): boolean {
  return answer === "once" || answer === "always" || answer === "always-here";
}

/** The person's reason when the answer is a refusal with one; undefined otherwise. */
export function denialReason(answer: ApprovalAnswer): string | undefined {
  if (typeof answer !== "object" || answer === null) return undefined;
  return typeof answer.deny === "string" ? answer.deny : undefined;
}

export type { AlwaysRule } from "./always.ts";

/** Everything a broker needs; plain data, so it crosses a Worker boundary. */
export interface ApprovalRequest {
  tool: string;
  callId?: string;
  access: Access;
  decision: Decision;
  always: AlwaysRule[];
  /**
   * What is asked: whether a call may run (the default), or whether to trust
   * the project (src/trust/project_trust.ts), whose answers are its own —
   * trust and remember (`always-here`), trust for this run only (`once`), or
   * not — with no reason to type, since no model exists yet to read one.
   */
  subject?: "call" | "project-trust";
}

export interface ApprovalBroker {
  ask(request: ApprovalRequest): Promise<ApprovalAnswer>;
}

/**
 * What the model is told when a call is refused: why, and what a person
 * could do to allow it. `hint` is the proved answer of allowHint: flags that
 * would let the call through, or why nothing would (a deny rule).
 */
export function denialMessage(
  request: ApprovalRequest,
  source: "rule" | "user" | "headless",
  hint: AllowHint,
  userReason?: string,
): { message: string; hint: string } {
  const { decision } = request;
  const rerun = hint.kind === "flags" ? shellLine(hint.args) : "";
  if (hint.kind === "blocked") {
    return {
      message: `Permission denied: ${decision.reason}.`,
      hint: "A deny rule always wins and no flag overrides it; do not retry this call. " +
        "Find another way, or tell the user which rule blocks you.",
    };
  }
  if (source === "rule") {
    return {
      message: `Permission denied: ${decision.reason}.`,
      hint: `Do not retry this call. The user can allow it by rerunning with ${rerun}.`,
    };
  }
  if (source === "user" && userReason !== undefined) {
    return {
      message: `The user denied this: ${userReason}`,
      hint: "Do not retry it as it was; act on the user's reason, or ask them what they want.",
    };
  }
  if (source === "user") {
    return {
      message: `The user refused this call (${decision.reason}).`,
      hint: "Do not retry it; ask the user what they want instead, or take another approach.",
    };
  }
  return {
    message:
      `Permission needed but nobody can approve it in this headless run: ${decision.reason}.`,
    hint: `Do not retry this call. The user can allow it by rerunning with ${rerun}${
      hint.config ? `, or by adding ${hint.config} to their global config` : ""
    }.`,
  };
}

/** No terminal: refuses every ask and keeps the list for `session.completed`. */
export class HeadlessBroker implements ApprovalBroker {
  readonly #denials: Denial[] = [];

  ask(request: ApprovalRequest): Promise<ApprovalAnswer> {
    this.#denials.push({
      tool: request.tool,
      key: request.access.key,
      patterns: request.access.patterns,
      reason: request.decision.reason,
    });
    return Promise.resolve("deny");
  }

  denials(): Denial[] {
    return [...this.#denials];
  }
}

/** `--yes`: approves each ask once. Denies never reach it. */
export class YesBroker implements ApprovalBroker {
  ask(_request: ApprovalRequest): Promise<ApprovalAnswer> {
    return Promise.resolve("once");
  }
}
