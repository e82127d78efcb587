/**
 * What the rule table answers: one check per thing a call needs approved,
 * and the decision they add up to. Its own module, so the checks that build
 * one (evaluate.ts, code_path_check.ts) need not import each other.
 */
import type { SandboxMode } from "../sandbox/modes.ts";
import type { Action, Rule } from "./rules.ts";

/** One thing a rule had to approve, and what it got. */
export interface Check {
  key: string;
  subject: string;
  action: Action;
  reason: string;
  rule?: Rule;
  /** For a refusal of the sandbox mode (no rule): the setting that lifts it. */
  fix?: { sandbox: SandboxMode } | { addDir: string };
}

/** The verdict on one call: the strictest of its checks. */
export interface Decision {
  action: Action;
  /** Why, in words fit for a person and for the model. */
  reason: string;
  /** The rule behind the deciding check, when a rule (not a default) decided. */
  rule?: Rule;
  /** Every check made; the deciding one is the strictest. */
  checks: Check[];
}
