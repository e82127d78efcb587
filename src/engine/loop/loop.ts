/**
 * The agent loop: send the history, stream the answer, and for each tool call
 * declare → policy → execute, until the model stops calling tools or a limit
 * is reached. Every step becomes an event; persistence and rendering happen
 * behind the injected sinks, so this file never touches a terminal or a table.
 */
import type {
  ChatMessage,
  ChatProvider,
  ProviderData,
  ToolCall,
  ToolSchema,
} from "../../provider/types.ts";
import { ProviderError } from "../../provider/types.ts";
import type { Tool, ToolContext } from "../../tools/tool.ts";
import { addUsage, emptyUsage } from "../../contracts/events.ts";
import { collectIfGrown } from "../../lib/collect.ts";
import type { EventBodies, EventType, Usage } from "../../contracts/events.ts";
import { type CompactionPart, resultText, type StoredPart } from "./history.ts";
import { type ModelLimits, resolveModelLimits } from "../../provider/model_limits.ts";
import { ContextKeeper } from "../context/keeper.ts";
import type { CompactionSettings } from "../context/plan.ts";
import { isContextOverflow } from "../context/overflow.ts";
import { compactionRecord } from "../context/record.ts";
import {
  type AdmittedCall,
  admitToolCall,
  executeToolCall,
  type ToolCallDeps,
  type ToolCallGate,
  type ToolCallHooks,
  type ToolResultPart,
} from "./tool_call.ts";

/** Persistence seen from the loop; every method commits before returning. */
export interface SessionRecorder {
  /** Returns the stored message's id, when it has one. */
  userMessage(text: string): string | void;
  /**
   * `interrupted`: the answer stopped mid-stream; `text` is what had been
   * shown. `extra`: its reasoning and the fields its server wants back. Returns its id.
   */
  assistantMessage(
    text: string,
    calls: ToolCall[],
    interrupted?: boolean,
    extra?: { reasoning?: string; providerData?: ProviderData },
  ): string | void;
  toolResult(part: Extract<StoredPart, { type: "tool_result" }>): void;
  stepUsage(usage: Usage): void;
  /** A request made to write a compaction's summary (not a turn): stored as a usage row. */
  summaryUsage?(usage: Usage): void;
  /** A compaction, recorded where it happened so a resumed session replays it. */
  compaction?(part: CompactionPart): void;
}

export interface LoopDeps {
  provider: ChatProvider;
  tools: Tool[];
  schemas: ToolSchema[];
  gate: ToolCallGate;
  /** The session's PreToolUse and PostToolUse hooks; absent: none. */
  hooks?: ToolCallHooks;
  recorder: SessionRecorder;
  emit<K extends EventType>(type: K, body: EventBodies[K]): void;
  /** A ToolContext for one call. */
  context(callId: string, signal: AbortSignal): ToolContext;
  /** Parse the model's raw arguments against the tool's schema (throws ToolError bad_input). */
  parseInput(tool: Tool, raw: string): unknown;
  /** Truncate a tool output for the history, spilling the whole of it. */
  truncate(output: string, callId: string): Promise<string>;
  /** Turn counter before this run (a resumed session keeps counting). */
  turnsSoFar?: number;
  /**
   * Asked before each model request: a full garbage collection when the
   * heap has grown enough since the last one (lib/collect.ts), or
   * nothing. @default collectIfGrown
   */
  collectGarbage?: () => void;
  clock?: () => number;
}

export interface LoopOptions {
  model: string;
  systemPrompt: string;
  history: ChatMessage[];
  prompt: string;
  /** Model turns this run may take; no limit when absent. */
  maxTurns?: number;
  /**
   * Turns the same attempt took before this loop (a Stop hook sent the
   * agent back): they count against `maxTurns` and the budget.
   * @default 0
   */
  turnsCounted?: number;
  /**
   * Asked before each model request after the first (so after each step): a
   * reason ends the run as a limit (`--max-cost`, `--max-tokens`).
   */
  overBudget?: () => string | undefined;
  maxOutputTokens?: number;
  temperature?: number;
  /** Epoch ms after which the run stops with a limit. */
  deadline?: number;
  signal: AbortSignal;
  /**
   * Context management (docs/context.md). Off: a request that no longer
   * fits the window ends the run as a limit. @default { auto: true, threshold: 0.8 }
   */
  compaction?: CompactionSettings;
  /** The model's window and output limit. @default resolveModelLimits(model) (the known-model table) */
  modelLimits?: Pick<ModelLimits, "context" | "output">;
  /**
   * The stored message each `history` entry came from (toChatHistory fills
   * it), so a compaction can name the first message it kept.
   */
  sources?: WeakMap<ChatMessage, string>;
  /** Every user message of the session before this prompt, a compaction's replaced ones too. */
  userWords?: readonly string[];
}

export type LoopOutcome =
  | { kind: "completed"; text: string; turns: number; usage: Usage }
  | { kind: "limit"; reason: string; text: string; turns: number; usage: Usage }
  | { kind: "interrupted"; text: string; turns: number; usage: Usage }
  | { kind: "provider_error"; error: ProviderError; text: string; turns: number; usage: Usage }
  | { kind: "failed"; message: string; text: string; turns: number; usage: Usage };

const MAX_TIMER_MS = 2 ** 31 - 1;
/**
 * A model that sends the very same calls again after every one of them was
 * refused (or failed) has stopped making progress; with no turn limit by
 * default, this is what ends such a run.
 */
export const MAX_REPEATED_FAILURES = 3;

export async function runLoop(deps: LoopDeps, options: LoopOptions): Promise<LoopOutcome> {
  // The deadline also cuts a model request or a command already running, so
  // `--max-time` holds even when one step hangs.
  const deadline = new AbortController();
  const delay = options.deadline === undefined
    ? undefined
    : Math.max(0, options.deadline - (deps.clock ?? Date.now)());
  // Longer than a timer can wait (~24 days): the check between turns is enough.
  const timer = delay === undefined || delay > MAX_TIMER_MS
    ? undefined
    : setTimeout(() => deadline.abort(), delay);
  try {
    return await loop(deps, {
      ...options,
      signal: AbortSignal.any([options.signal, deadline.signal]),
      interrupt: options.signal,
    });
  } finally {
    // `clearTimeout(undefined)` would load Deno's timers in a run that set none.
    if (timer !== undefined) clearTimeout(timer);
  }
}

async function loop(
  deps: LoopDeps,
  options: LoopOptions & { interrupt: AbortSignal },
): Promise<LoopOutcome> {
  const clock = deps.clock ?? Date.now;
  const history: ChatMessage[] = [
    { role: "system", content: options.systemPrompt },
    ...options.history,
    { role: "user", content: options.prompt },
  ];
  const sources = options.sources ?? new WeakMap<ChatMessage, string>();
  const remember = (message: ChatMessage, id: string | void) => {
    if (id) sources.set(message, id);
  };
  remember(history[history.length - 1], deps.recorder.userMessage(options.prompt));
  const usage = emptyUsage();
  let turns = 0;
  let lastText = "";
  let repeated = { calls: "", times: 0 };
  const byName = new Map(deps.tools.map((tool) => [tool.name, tool]));
  const done = (kind: "completed" | "interrupted") => ({ kind, text: lastText, turns, usage });
  const timeUp = (): LoopOutcome => ({
    kind: "limit",
    reason: "time limit reached (--max-time)",
    text: lastText,
    turns,
    usage,
  });
  // Stopped by a person (interrupted) or by the deadline (a limit)?
  const stopped = (): LoopOutcome | undefined =>
    options.interrupt.aborted ? done("interrupted") : options.signal.aborted ? timeUp() : undefined;
  const context = new ContextKeeper({
    provider: deps.provider,
    model: options.model,
    limits: options.modelLimits ?? resolveModelLimits(options.model),
    settings: options.compaction,
    maxOutputTokens: options.maxOutputTokens,
    schemas: deps.schemas,
    compacted: (event, detail) => {
      deps.recorder.compaction?.(compactionRecord(event, detail, sources));
      deps.emit("context.compacted", event);
    },
    userWords: options.userWords,
    warn: (message) => deps.emit("warning", { message }),
    spent: (more) => {
      addUsage(usage, more);
      if (more.input_tokens || more.output_tokens) deps.recorder.summaryUsage?.(more);
    },
    signal: options.signal,
  });
  const full = (reason: string): LoopOutcome => ({
    kind: "limit",
    reason,
    text: lastText,
    turns,
    usage,
  });

  for (;;) {
    const before = stopped();
    if (before) return before;
    const counted = (options.turnsCounted ?? 0) + turns;
    if (options.maxTurns !== undefined && counted >= options.maxTurns) {
      return {
        kind: "limit",
        reason: `stopped after ${counted} turns (--max-turns ${options.maxTurns})`,
        text: lastText,
        turns,
        usage,
      };
    }
    if (options.deadline !== undefined && clock() > options.deadline) return timeUp();
    const spentTooMuch = counted > 0 ? options.overBudget?.() : undefined;
    if (spentTooMuch) return full(spentTooMuch);
    turns++;
    const turn = (deps.turnsSoFar ?? 0) + turns;
    deps.emit("turn.started", { turn });
    (deps.collectGarbage ?? collectIfGrown)();

    const ready = await context.prepare(history, turn);
    if (!ready.ok) return stopped() ?? full(ready.reason);
    let response;
    let shown = "";
    let thought = "";
    const request = () =>
      deps.provider.stream(
        {
          model: options.model,
          messages: history,
          tools: deps.schemas,
          maxOutputTokens: context.replyLimit(history),
          temperature: options.temperature,
        },
        {
          onText: (text) => {
            shown += text;
            deps.emit("message.delta", { turn, text });
          },
          onReasoning: (text) => {
            thought += text;
            deps.emit("reasoning.delta", { turn, text });
          },
          // Loading what a call needs (the shell parser for bash, a sandbox) while its arguments
          // stream; the context serves that preparation only (its call id is not known yet).
          onToolName: (name) =>
            deps.tools.find((tool) => tool.name === name)?.prepare?.(
              deps.context("", options.signal),
            ),
          onRetry: (info) =>
            deps.emit("provider.retry", {
              attempt: info.attempt,
              delay_ms: info.delayMs,
              reason: info.reason,
            }),
        },
        options.signal,
      );
    try {
      try {
        response = await request();
      } catch (error) {
        // The endpoint counts differently from us: compact, then send this request once more.
        if (!isContextOverflow(error) || shown || stopped()) throw error;
        const again = await context.overflowed(history, turn, error);
        if (!again.ok) return stopped() ?? full(again.reason);
        response = await request();
      }
    } catch (error) {
      const stop = stopped();
      if (stop || error instanceof ProviderError) {
        // What the person saw is kept, marked unfinished, so a resumed
        // session's history still alternates user and assistant.
        deps.recorder.assistantMessage(
          shown,
          [],
          true,
          thought ? { reasoning: thought } : undefined,
        );
      }
      if (stop) return stop;
      if (isContextOverflow(error)) {
        return full(
          `the model endpoint still refused the request as longer than its context window ` +
            `after compacting it (${error.message}). Continue in a new session, or set the ` +
            `model's real window ("models" in the config) so skiff compacts in time.`,
        );
      }
      if (error instanceof ProviderError) {
        return { kind: "provider_error", error, text: lastText, turns, usage };
      }
      throw error;
    }
    context.observe(history, response.usage);

    addUsage(usage, response.usage);
    deps.recorder.stepUsage(response.usage);
    const calls = response.toolCalls;
    const extra = {
      ...(response.reasoning ? { reasoning: response.reasoning } : {}),
      ...(response.providerData ? { providerData: response.providerData } : {}),
    };
    const answer: ChatMessage = {
      role: "assistant",
      content: response.text || null,
      ...(calls.length ? { tool_calls: calls } : {}),
      ...extra,
    };
    remember(answer, deps.recorder.assistantMessage(response.text, calls, false, extra));
    history.push(answer);
    if (response.text) {
      lastText = response.text;
      deps.emit("message.completed", { turn, text: response.text });
    }

    if (calls.length === 0) {
      deps.emit("turn.completed", { turn, usage: response.usage });
      if (!response.text && response.finishReason === "length") {
        return {
          kind: "failed",
          message: "the model ran out of output tokens before answering",
          text: lastText,
          turns,
          usage,
        };
      }
      return done("completed");
    }

    const results = await runToolCalls(deps, calls, byName, turn, options.signal);
    for (const result of results) {
      history.push({ role: "tool", tool_call_id: result.call_id, content: resultText(result) });
    }
    deps.emit("turn.completed", { turn, usage: response.usage });
    const after = stopped();
    if (after) return after;
    repeated = repeatedFailures(repeated, calls, results);
    if (repeated.times >= MAX_REPEATED_FAILURES) {
      return {
        kind: "limit",
        reason: `stopped: the model sent the same calls ${repeated.times} turns in a row ` +
          "and each time they were refused or failed",
        text: lastText,
        turns,
        usage,
      };
    }
  }
}

/** Counts turns in a row whose calls all failed and were the same as the turn before. */
function repeatedFailures(
  before: { calls: string; times: number },
  calls: ToolCall[],
  results: ToolResultPart[],
): { calls: string; times: number } {
  if (results.some((result) => result.ok)) return { calls: "", times: 0 };
  const signature = JSON.stringify(calls.map((call) => [call.name, call.arguments]));
  return { calls: signature, times: signature === before.calls ? before.times + 1 : 1 };
}

/**
 * Policy runs one call at a time, in order (a person may be asked); the
 * allowed calls then run together. Results come back in call order.
 */
async function runToolCalls(
  deps: LoopDeps,
  calls: ToolCall[],
  byName: Map<string, Tool>,
  turn: number,
  signal: AbortSignal,
): Promise<ToolResultPart[]> {
  const callDeps: ToolCallDeps = {
    tools: byName,
    gate: deps.gate,
    emit: deps.emit,
    context: deps.context,
    parseInput: deps.parseInput,
    truncate: deps.truncate,
    record: (part) => deps.recorder.toolResult(part),
    hooks: deps.hooks,
    clock: deps.clock,
  };
  const admitted: AdmittedCall[] = [];
  const results = new Map<string, ToolResultPart>();
  for (const call of calls) {
    const outcome = await admitToolCall(callDeps, call, turn, signal);
    if ("result" in outcome) results.set(call.id, outcome.result);
    else admitted.push(outcome.call);
  }
  await Promise.all(admitted.map(async (call) => {
    results.set(call.call.id, await executeToolCall(callDeps, call));
  }));
  return calls.map((call) => results.get(call.id)!);
}
