/**
 * The loop's one contact with context management. Before each request it
 * measures the history and, over the threshold, prunes old tool outputs and
 * (only when that is not enough) replaces the older turns with a checked
 * handoff summary; after each answer it learns the endpoint's count; when
 * the endpoint still refuses a request as too long, it compacts harder so
 * the loop can try that request once more. The history is rewritten in
 * place; the store keeps the full conversation.
 */
import type { ChatMessage, ChatProvider, ToolSchema } from "../../provider/types.ts";
import type { ProviderError } from "../../provider/types.ts";
import type { ModelLimits } from "../../provider/model_limits.ts";
import type { EventBodies, Usage } from "../../contracts/events.ts";
import { ContextMeter } from "./size.ts";
import {
  type CompactionSettings,
  type ContextBudget,
  contextBudget,
  DEFAULT_COMPACTION,
  fitReplyToOpening,
  fullWindowMessage,
  planRequest,
  replyLimitFor,
} from "./plan.ts";
import { pruneToolOutputs } from "./prune.ts";
import { summarise, userWords } from "./summary.ts";
import { changedFiles } from "./changed_files.ts";
import { tokensFromOverflow, windowFromOverflow } from "./overflow.ts";

export type CompactionEvent = EventBodies["context.compacted"];

/** What a compaction changed, message by message: what the store records to replay it. */
export interface CompactionDetail {
  /** Each pruned result's call and the line the model reads instead. */
  pruned: { call_id: string; note: string }[];
  /** Summary: the handoff message that now stands for the older part. */
  handoff?: ChatMessage;
  /** Summary: the first message kept verbatim after the handoff (none: nothing kept). */
  keptFrom?: ChatMessage;
}

export interface ContextKeeperOptions {
  provider: ChatProvider;
  model: string;
  limits: Pick<ModelLimits, "context" | "output">;
  settings?: CompactionSettings;
  maxOutputTokens?: number;
  schemas: ToolSchema[];
  /** A compaction happened (becomes the `context.compacted` event). */
  compacted(event: CompactionEvent, detail: CompactionDetail): void;
  /** Something the user should know (a summary that failed). */
  warn(message: string): void;
  /** Tokens a summary request spent. */
  spent(usage: Usage): void;
  /**
   * The user's messages from before this history (a resumed session whose
   * earlier turns a handoff replaced): a later handoff must still hold them.
   */
  userWords?: readonly string[];
  signal?: AbortSignal;
}

export type Readiness = { ok: true } | { ok: false; reason: string };

/** Summary output is kept well inside the reply room. */
const MAX_SUMMARY_TOKENS = 4_096;

export class ContextKeeper {
  readonly meter: ContextMeter;
  #options: ContextKeeperOptions;
  #settings: CompactionSettings;
  #budget: ContextBudget;
  /** Every user message seen, so a second handoff still holds the first one's task. */
  #userWords: string[] = [];
  /** Every file the session's calls changed, so a handoff names them all. */
  #changedFiles: string[] = [];
  /** The opening request's size, once measured: the reply reserve is sized against it. */
  #opening: number | undefined;

  constructor(options: ContextKeeperOptions) {
    this.#options = options;
    this.#settings = options.settings ?? DEFAULT_COMPACTION;
    this.#budget = contextBudget(options.limits, this.#settings, options.maxOutputTokens);
    this.meter = new ContextMeter(options.schemas);
    this.#userWords = [...(options.userWords ?? [])];
  }

  get budget(): ContextBudget {
    return this.#budget;
  }

  /** The endpoint counted `usage.input_tokens` for `sent`. */
  observe(sent: readonly ChatMessage[], usage: Usage): void {
    this.meter.observe(sent, usage.input_tokens);
  }

  /** Before a request: compact when over the threshold; not ok when it cannot be sent. */
  async prepare(history: ChatMessage[], turn: number): Promise<Readiness> {
    this.#learnUserWords(history);
    if (this.#opening === undefined) {
      this.#opening = this.meter.estimate(history);
      this.#budget = fitReplyToOpening(this.#budget, this.#opening, this.#settings);
    }
    const plan = planRequest(this.meter.estimate(history), this.#budget, this.#settings);
    if (plan.action === "send") return { ok: true };
    if (plan.action === "stop") {
      return { ok: false, reason: fullWindowMessage(plan.tokens, this.#budget, false) };
    }
    return await this.#compact(history, turn, "threshold");
  }

  /** The output limit to send with `history`: what is left of the window, up to the one configured. */
  replyLimit(history: readonly ChatMessage[]): number | undefined {
    return replyLimitFor(this.meter.estimate(history), this.#budget, this.#options.maxOutputTokens);
  }

  /**
   * The endpoint refused the request as too long. Learns the window it named
   * (and that our count runs low), then compacts. Not ok: do not retry.
   */
  async overflowed(history: ChatMessage[], turn: number, error: ProviderError): Promise<Readiness> {
    const tokens = this.meter.estimate(history);
    const named = windowFromOverflow(error.message);
    const windowExplains = named !== undefined && named < this.#budget.window;
    if (windowExplains) {
      this.#budget = contextBudget(
        { ...this.#options.limits, context: named },
        this.#settings,
        this.#options.maxOutputTokens,
      );
      if (this.#opening !== undefined) {
        this.#budget = fitReplyToOpening(this.#budget, this.#opening, this.#settings);
      }
    }
    // Our count ran low by as much as the server's own count shows; when it
    // names neither its count nor a smaller window, assume a quarter.
    const counted = tokensFromOverflow(error.message);
    if (counted !== undefined && counted > tokens) this.meter.distrust(tokens / counted);
    else if (!windowExplains && counted === undefined) this.meter.distrust();
    else this.meter.invalidate();
    if (!this.#settings.auto) {
      return { ok: false, reason: fullWindowMessage(tokens, this.#budget, false) };
    }
    return await this.#compact(history, turn, "overflow");
  }

  /**
   * A person asked for a compaction now (`skiff compact`): a summary with
   * `focus` added to its prompt, whatever the size; pruning when it fails.
   */
  async compactNow(history: ChatMessage[], turn: number, focus?: string): Promise<Readiness> {
    this.#learnUserWords(history);
    return await this.#compact(history, turn, "manual", focus);
  }

  #learnUserWords(history: readonly ChatMessage[]): void {
    for (const words of userWords(history)) {
      if (!this.#userWords.includes(words)) this.#userWords.push(words);
    }
    for (const path of changedFiles(history)) {
      if (!this.#changedFiles.includes(path)) this.#changedFiles.push(path);
    }
  }

  async #compact(
    history: ChatMessage[],
    turn: number,
    trigger: CompactionEvent["trigger"],
    focus?: string,
  ): Promise<Readiness> {
    const budget = this.#budget;
    const before = this.meter.estimate(history);
    const manual = trigger === "manual";
    // Asked for by a person: the summary is what was asked for, pruning only its fallback.
    const notes = manual ? [] : pruneToolOutputs(history, this.meter, { goal: budget.goal }).notes;
    const prune = (includeUnread: boolean) =>
      notes.push(
        ...pruneToolOutputs(history, this.meter, {
          goal: manual ? 0 : budget.threshold,
          includeUnread,
        }).notes,
      );
    const event = (
      body: Partial<CompactionEvent> & Pick<CompactionEvent, "kind">,
      detail: Omit<CompactionDetail, "pruned"> = {},
    ) =>
      this.#options.compacted({
        turn,
        trigger,
        tokens_before: before,
        tokens_after: this.meter.estimate(history),
        window: budget.window,
        pruned: notes.length,
        ...body,
      }, { pruned: notes, ...detail });
    // After an overflow the estimate has just been corrected by the server's count or window.
    if (!manual && this.meter.estimate(history) <= budget.threshold) {
      event({ kind: "prune" });
      return { ok: true };
    }
    const outcome = await summarise(history, {
      provider: this.#options.provider,
      model: this.#options.model,
      meter: this.meter,
      requestBudget: budget.fits,
      maxOutputTokens: Math.min(budget.reply, MAX_SUMMARY_TOKENS),
      userWords: this.#userWords,
      changedFiles: this.#changedFiles,
      focus,
      signal: this.#options.signal,
    });
    this.#options.spent(outcome.usage);
    if (outcome.ok) {
      history.splice(0, history.length, ...outcome.history);
      this.meter.invalidate();
      const [, handoff, keptFrom] = history;
      if (this.meter.estimate(history) > budget.threshold) prune(true);
      event({ kind: "summary", replaced: outcome.replaced, summary: outcome.summary }, {
        handoff,
        keptFrom,
      });
    } else {
      // The newest outputs go only as far as needed to send the request at all
      // (asked for by a person: the old ones, all of them).
      prune(!manual);
      // Asked for by a person, the outcome is reported to them whole (the event); a run is told here.
      if (!manual) {
        this.#options.warn(
          `Context compaction: the summary was not used (${outcome.reason}); ` +
            `old tool outputs were pruned instead, and the conversation is kept whole otherwise.`,
        );
      }
      event({ kind: "prune", fallback: outcome.reason });
    }
    const after = this.meter.estimate(history);
    if (after > budget.fits) {
      return { ok: false, reason: fullWindowMessage(after, budget, true) };
    }
    return { ok: true };
  }
}
