/**
 * Which layer a failed run's failure belongs to. One deterministic table from
 * what the run said when it ended (the code of its `error` event, that
 * event's message, and the denials on `session.completed`) to a layer and a
 * stable reason. The engine uses it when it emits `session.completed`, and
 * `skiff sessions stats` uses the very same table on sessions stored before
 * the field existed (their results marked inferred, the store left as it was),
 * so today's numbers and the history's are one measurement.
 */
import type { Attribution, Denial, FailureLayer, SkiffEvent } from "../contracts/events.ts";

export type { Attribution, FailureLayer };

export const FAILURE_LAYERS: readonly FailureLayer[] = [
  "agent",
  "harness",
  "workflow",
  "environment",
  "provider",
  "operator",
  "unknown",
];

/** What a run said about how it ended; all of it is in the stored events too. */
export interface FailureFacts {
  /** The `error` event's code (limit, interrupted, provider, failed, internal); absent when none. */
  code?: string;
  message?: string;
  denials: readonly Denial[];
}

/** Each limit, by the words its message always carries. First match wins. */
const LIMITS: readonly [RegExp, FailureLayer, string][] = [
  // Limits a person set on the run: the run did what it was told.
  [/--max-time\b/, "operator", "max_time"],
  [/--max-cost\b|\bmaxCost\b/, "operator", "max_cost"],
  [/--max-tokens\b|\bmaxTokens\b/, "operator", "max_tokens"],
  // The model did not finish within its turns, or kept repeating refused calls.
  [/--max-turns\b/, "agent", "max_turns"],
  [/same calls .* in a row/, "agent", "repeated_failures"],
  // The task's conversation outgrew the model's window even after compacting.
  [/context window/, "agent", "context_full"],
];

const PROVIDER: readonly [RegExp, string][] = [
  [/^Cannot reach /, "provider_unreachable"],
  [/rate limit or quota/, "provider_rate_limited"],
  [/rejected the request/, "provider_auth"],
  [/answered (HTTP )?5\d\d|server error|\b5\d\d\b/, "provider_server_error"],
];

/**
 * A command refused because no OS sandbox works here (src/sandbox/choose.ts
 * words its refusal so), not because a rule forbade it.
 */
export function isMissingSandbox(denial: Denial): boolean {
  return /^Cannot run commands (in '[^']*' mode|with the sandbox backend '[^']*' you chose): /
    .test(denial.reason) ||
    /\bno (OS |process )?sandbox (is )?(available|supported|works)/i.test(denial.reason);
}

/** The layer and reason of a run that did not succeed. */
export function attributeFailure(facts: FailureFacts): Attribution {
  const message = facts.message ?? "";
  switch (facts.code) {
    case "interrupted":
      return { layer: "operator", reason: "interrupted" };
    case "limit":
      for (const [pattern, layer, reason] of LIMITS) {
        if (pattern.test(message)) return { layer, reason };
      }
      return { layer: "unknown", reason: "limit" };
    case "provider":
      for (const [pattern, reason] of PROVIDER) {
        if (pattern.test(message)) return { layer: "provider", reason };
      }
      return { layer: "provider", reason: "provider_error" };
    case "internal":
      return { layer: "harness", reason: "internal_error" };
    case "verification":
      // The agent said it was done and the user's check says otherwise.
      return { layer: "agent", reason: "verification_failed" };
    case "failed":
      if (/ran out of output tokens/.test(message)) {
        return { layer: "agent", reason: "output_tokens_exhausted" };
      }
      return { layer: "unknown", reason: "failed" };
  }
  if (facts.denials.length) {
    // A missing sandbox is the machine's lack, whatever else was refused.
    return facts.denials.some(isMissingSandbox)
      ? { layer: "environment", reason: "sandbox_unavailable" }
      : { layer: "workflow", reason: "permission_denied" };
  }
  return { layer: "unknown", reason: facts.code ? `error_${facts.code}` : "unexplained" };
}

/** A stored run's attribution, and whether it was worked out now from its events. */
export interface StoredAttribution extends Attribution {
  inferred: boolean;
}

/**
 * The attribution of each failed run in a session's stored events: the one
 * it carries, or, for a run stored before the field existed, the table
 * applied to the same events. Successful runs give none.
 */
export function attributionsOf(events: readonly SkiffEvent[]): StoredAttribution[] {
  return runEnds(events).flatMap((run) => run.attribution ? [run.attribution] : []);
}

/** Each run's end (its `session.completed`), in order, with its attribution when it failed. */
export function runEnds(
  events: readonly SkiffEvent[],
): { timestamp: string; attribution?: StoredAttribution }[] {
  const ends: { timestamp: string; attribution?: StoredAttribution }[] = [];
  let lastError: { code: string; message: string } | undefined;
  for (const event of events) {
    if (event.type === "session.started") lastError = undefined;
    if (event.type === "error") lastError = { code: event.code, message: event.message };
    if (event.type !== "session.completed") continue;
    let attribution: StoredAttribution | undefined;
    if (event.attribution) attribution = { ...event.attribution, inferred: false };
    else if (event.exit_code !== 0) {
      const facts = { code: lastError?.code, message: lastError?.message, denials: event.denials };
      attribution = { ...attributeFailure(facts), inferred: true };
    }
    ends.push({ timestamp: event.timestamp, ...(attribution ? { attribution } : {}) });
    lastError = undefined;
  }
  return ends;
}
