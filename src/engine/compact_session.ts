/**
 * Compacting a stored session on request: the code behind both `skiff
 * compact` and the chat's `/compact`. The model writes the structured handoff
 * of the older turns (with the focus added to its prompt); it is checked and
 * recorded like an automatic one. Whoever calls this holds the session.
 */
import { recordCompaction } from "./recorder.ts";
import type { Config } from "../config/schema.ts";
import type { ChatMessage, ChatProvider } from "../provider/types.ts";
import { resolveModelLimits } from "../provider/model_limits.ts";
import { type StoredMessage, toChatHistory } from "./loop/history.ts";
import { type CompactionDetail, type CompactionEvent, ContextKeeper } from "./context/keeper.ts";
import { compactionSettings } from "./context/plan.ts";
import { compactionRecord } from "./context/record.ts";
import { nothingToSummarise, userWords } from "./context/summary.ts";
import type { Session, Store } from "../store/store.ts";

export interface CompactRequest {
  store: Store;
  session: Session;
  provider: ChatProvider;
  model: string;
  /** The config's `models` and `compaction`, or the spec's settings, which carry both. */
  config: Pick<Config, "models" | "compaction">;
  focus?: string;
  warn(message: string): void;
}

/**
 * The compaction made (the caller reports the event: stores it, draws it),
 * or nothing recorded: because there was nothing worth compacting (decided
 * without asking the model), or because the summary failed and no old tool
 * output was left to prune (`failed`).
 */
export type CompactOutcome =
  | { changed: true; event: CompactionEvent }
  | { changed: false; reason: string; failed: boolean };

export async function compactSession(request: CompactRequest): Promise<CompactOutcome> {
  const { store, session, model, config } = request;
  const stored = store.loadHistory(session.id) as StoredMessage[];
  const sources = new WeakMap<ChatMessage, string>();
  // The system prompt is rebuilt at every run; it is not part of what is summarised.
  const history: ChatMessage[] = [
    { role: "system", content: "" },
    ...toChatHistory(stored, sources),
  ];
  const done: { event: CompactionEvent; detail: CompactionDetail }[] = [];
  const keeper = new ContextKeeper({
    provider: request.provider,
    model,
    limits: resolveModelLimits(model, config.models),
    settings: compactionSettings(config),
    schemas: [],
    userWords: userWords(
      toChatHistory(stored.filter((message) => message.role !== "compaction")),
    ),
    compacted: (event, detail) => done.push({ event, detail }),
    warn: request.warn,
    spent: (usage) => {
      if (usage.input_tokens || usage.output_tokens) store.usage.record(session.id, model, usage);
    },
  });
  const idle = nothingToSummarise(history, keeper.meter);
  if (idle) return { changed: false, reason: idle, failed: false };
  await keeper.compactNow(history, session.turns, request.focus);
  const [{ event, detail }] = done;
  if (event.kind === "prune" && event.pruned === 0) {
    return event.fallback === undefined
      ? { changed: false, reason: "it is already small", failed: false }
      : { changed: false, reason: event.fallback, failed: true };
  }
  recordCompaction(store, session.id, compactionRecord(event, detail, sources));
  return { event, changed: true };
}

/** "summarised 30 older messages into a handoff, ~41000 → ~9000 tokens (estimated)" */
export function describeCompaction(event: CompactionEvent): string {
  const tokens = `~${event.tokens_before} → ~${event.tokens_after} tokens (estimated)`;
  const what = event.kind === "summary"
    ? `summarised ${event.replaced} older messages into a handoff${
      event.pruned ? ` and pruned ${event.pruned} tool outputs` : ""
    }`
    : `the summary was not used (${event.fallback}); pruned ${event.pruned} old tool outputs instead`;
  return `${what}, ${tokens}`;
}
