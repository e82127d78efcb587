/**
 * One prompt's run inside an opened session: its own abort signal, deadline,
 * prompt number (what undo files its snapshots under), recorder and the
 * usage it spent. A session serves many prompts; each gets a fresh one, so
 * a Ctrl-C that stopped one prompt never spends the next one's signal.
 */
import { addUsage, emptyUsage, type Usage } from "../contracts/events.ts";
import type { SessionRecorder } from "./loop/loop.ts";
import type { FileLedger } from "../tools/files/mod.ts";
import { undoStateOf } from "../undo/undo.ts";
import type { Store } from "../store/store.ts";
import { storeRecorder } from "./recorder.ts";
import type { OutcomeKind } from "./types.ts";
import { formatUsd } from "../provider/cost.ts";

/** What a prompt may spend, its subagents included (`--max-cost`, `--max-tokens`). */
export interface SpendLimits {
  maxCostUsd?: number;
  maxTokens?: number;
}

export class PromptRun {
  readonly #abort = new AbortController();
  /** Kept here too, so a run that ends in an internal error still reports them. */
  readonly spent: { usage: Usage; turns: number } = { usage: emptyUsage(), turns: 0 };

  constructor(
    /** The user prompt's number in its session (1, 2, …): undo's unit. */
    readonly prompt: number,
    /** Epoch ms; none: no time limit. */
    readonly deadline?: number,
    /** The front end's outcome → exit code table; none for a `skiff tool` call. */
    readonly exitCodes?: Readonly<Record<OutcomeKind, number>>,
    readonly limits: SpendLimits = {},
  ) {}

  /** Where this prompt's spending is counted from: set when its recorder is made. */
  #spending?: { store: Store; sessionId: string; afterId: number };

  /**
   * Why this prompt must stop spending, or undefined. Counted from the
   * store, so the usage of subagents (their own sessions) is included.
   */
  overBudget(): string | undefined {
    const { maxCostUsd, maxTokens } = this.limits;
    if ((maxCostUsd === undefined && maxTokens === undefined) || !this.#spending) return undefined;
    const { store, sessionId, afterId } = this.#spending;
    const spent = store.usage.sessionTotals(sessionId, afterId);
    const tokens = spent.input_tokens + spent.output_tokens;
    if (maxTokens !== undefined && tokens >= maxTokens) {
      return `stopped after spending ${tokens} tokens, at the limit of ${maxTokens} ` +
        `(--max-tokens or config maxTokens). To go on, raise it: --max-tokens ${
          Math.max(maxTokens * 2, tokens + maxTokens)
        }`;
    }
    if (maxCostUsd !== undefined && spent.cost_usd >= maxCostUsd) {
      return `stopped after spending ${formatUsd(spent.cost_usd)} (${tokens} tokens), at the ` +
        `limit of ${formatUsd(maxCostUsd)} (--max-cost or config maxCost). To go on, raise it: ` +
        `--max-cost ${roundUp(Math.max(maxCostUsd * 2, spent.cost_usd + maxCostUsd))}`;
    }
    return undefined;
  }

  get signal(): AbortSignal {
    return this.#abort.signal;
  }

  abort(): void {
    this.#abort.abort();
  }

  /** The store recorder, also saving what the ledger learnt and summing this run's usage. */
  recorder(store: Store, sessionId: string, ledger: FileLedger): SessionRecorder {
    this.#spending = { store, sessionId, afterId: store.usage.lastId() };
    const recorder = storeRecorder(store, sessionId);
    const onToolResult = recorder.toolResult;
    recorder.toolResult = (part) => {
      onToolResult(part);
      if (ledger.takeSeenChanged()) store.saveFileReads(sessionId, ledger.entries());
    };
    const onStepUsage = recorder.stepUsage;
    recorder.stepUsage = (usage) => {
      onStepUsage(usage);
      addUsage(this.spent.usage, usage);
      this.spent.turns++;
    };
    return recorder;
  }
}

/**
 * What this prompt left each changed file as, so `skiff undo` can tell
 * skiff's own state from later changes.
 */
export function recordUndoAfterState(
  store: Store,
  sessionId: string,
  prompt: number,
  /** Only these files (a file the prompt has no snapshot of is left alone); default: every changed one. */
  paths: readonly string[] = store.snapshots.pathsOfPrompt(sessionId, prompt),
  /** The state a file was left in; the editor's text for a file an editor took. @default disk */
  stateOf: (path: string) => string = undoStateOf,
): void {
  for (const path of paths) {
    store.snapshots.recordAfter(sessionId, prompt, path, stateOf(path));
  }
  store.undoJournal.settle(sessionId, prompt, paths);
}

/** A dollar figure to suggest: two significant digits, rounded up. */
function roundUp(dollars: number): number {
  const step = 10 ** (Math.floor(Math.log10(dollars)) - 1);
  return Number((Math.ceil(dollars / step) * step).toPrecision(2));
}
