/**
 * When to act on the context: the budget a request must fit in (a share of
 * the model's window, with room left for the reply) and what to do about a
 * request over it. Pure arithmetic, so every threshold can be tested alone.
 */
import type { ModelLimits } from "../../provider/model_limits.ts";

/** As the config will hold it: `"compaction": {"auto": true, "threshold": 0.8}`. */
export interface CompactionSettings {
  /** Compact automatically; off: a full window ends the run as a limit. */
  auto: boolean;
  /** Share of the window a request may fill before compaction starts (0.1–0.95). */
  threshold: number;
}

export const DEFAULT_COMPACTION: CompactionSettings = { auto: true, threshold: 0.8 };

/** The settings from the config's `compaction` key, defaults where it says nothing. */
export function compactionSettings(
  config: { compaction?: Partial<CompactionSettings> },
): CompactionSettings {
  return {
    auto: config.compaction?.auto ?? DEFAULT_COMPACTION.auto,
    threshold: config.compaction?.threshold ?? DEFAULT_COMPACTION.threshold,
  };
}

/** Reply room assumed when neither the request nor the model names an output limit. */
export const DEFAULT_REPLY_TOKENS = 4_096;

/**
 * After a compaction the request aims this far below the threshold, so the
 * next few turns do not each compact again (and the endpoint's prompt cache
 * is not thrown away at every turn).
 */
export const COMPACTION_HEADROOM = 0.75;

export interface ContextBudget {
  /** The model's window. */
  window: number;
  /** Tokens kept free for the answer. */
  reply: number;
  /** A request above this is compacted first (auto on) or ends the run (auto off, over `fits`). */
  threshold: number;
  /** What a compaction aims for. */
  goal: number;
  /** The most a request may hold and still leave room for the reply. */
  fits: number;
}

export function contextBudget(
  limits: Pick<ModelLimits, "context" | "output">,
  settings: CompactionSettings = DEFAULT_COMPACTION,
  maxOutputTokens?: number,
): ContextBudget {
  const window = limits.context;
  const share = Math.min(0.95, Math.max(0.1, settings.threshold));
  // A reply reservation over half the window would leave nothing to work with.
  const reply = Math.min(
    Math.floor(window / 2),
    maxOutputTokens ?? limits.output ?? DEFAULT_REPLY_TOKENS,
  );
  const fits = window - reply;
  const threshold = Math.min(Math.floor(window * share), fits);
  return { window, reply, threshold, goal: Math.floor(threshold * COMPACTION_HEADROOM), fits };
}

/** Reply room is never squeezed below this to make a small window fit. */
export const MIN_REPLY_TOKENS = 1_024;

/**
 * `budget` with its reply reserve sized to what fits beside the opening
 * request (system prompt, tool schemas, the first message). In a small
 * window half of it for the reply and the opening request do not both fit
 * (an 8k model: ~4k + ~4k before a single turn), so the reserve shrinks to
 * half of what the opening request leaves, the other half being the
 * conversation's; never below MIN_REPLY_TOKENS, never above the reserve
 * asked for. A large window is unchanged.
 */
export function fitReplyToOpening(
  budget: ContextBudget,
  openingTokens: number,
  settings: CompactionSettings = DEFAULT_COMPACTION,
): ContextBudget {
  const left = budget.window - openingTokens;
  if (left - budget.reply >= budget.reply) return budget;
  const reply = Math.min(budget.reply, Math.max(MIN_REPLY_TOKENS, Math.floor(left / 2)));
  const fits = budget.window - reply;
  const share = Math.min(0.95, Math.max(0.1, settings.threshold));
  const threshold = Math.min(Math.floor(budget.window * share), fits);
  return { ...budget, reply, threshold, goal: Math.floor(threshold * COMPACTION_HEADROOM), fits };
}

/**
 * The output limit to send with a request of `tokens`: the one asked for,
 * cut to what is left of the window, so prompt and reply together never
 * exceed it (servers refuse a request whose sum does); never below the
 * budget's reserve. Undefined when none is asked for (the server chooses).
 */
export function replyLimitFor(
  tokens: number,
  budget: ContextBudget,
  asked: number | undefined,
): number | undefined {
  if (asked === undefined) return undefined;
  return Math.max(Math.min(asked, budget.reply), Math.min(asked, budget.window - tokens));
}

export type ContextPlan =
  | { action: "send" }
  | { action: "compact"; tokens: number }
  | { action: "stop"; tokens: number };

/** What to do before sending a request of `tokens`. */
export function planRequest(
  tokens: number,
  budget: ContextBudget,
  settings: CompactionSettings = DEFAULT_COMPACTION,
): ContextPlan {
  if (settings.auto) {
    return tokens > budget.threshold ? { action: "compact", tokens } : { action: "send" };
  }
  return tokens > budget.fits ? { action: "stop", tokens } : { action: "send" };
}

/** The words of a run ended by a full window. */
export function fullWindowMessage(tokens: number, budget: ContextBudget, auto: boolean): string {
  const state =
    `the conversation fills the model's context window (${tokens} of ${budget.window} ` +
    `tokens, with ${budget.reply} kept for the reply)`;
  const what = auto
    ? "compaction could not make it fit (the newest turn alone is too large)"
    : 'automatic compaction is off ("compaction": {"auto": false} in the config)';
  return `${state}; ${what}. Continue in a new session (the work so far is kept in this one), ` +
    `turn compaction on, or use a model with a larger window ("models" in the config sets its ` +
    `context size).`;
}
