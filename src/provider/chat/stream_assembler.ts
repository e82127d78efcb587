/**
 * Builds one answer out of streamed Chat Completions chunks: text, reasoning,
 * tool calls (several at once, each assembled from argument fragments by its
 * index), the fields a server wants back (request_body.ts sends them), the finish
 * reason and usage. One assembler per attempt; what the user has
 * already seen across attempts is tracked by `TextDeliveryGuard`.
 */
import type { Usage } from "../../contracts/events.ts";
import type { ProviderData, ToolCall } from "../types.ts";
import { mergeReasoningDetails, type ReasoningDetail } from "../dialects/reasoning_details.ts";

/** The parts of a streamed chunk we read; servers vary, so every field is optional. */
export interface StreamChunk {
  choices?:
    | Array<{
      index?: number;
      delta?: {
        content?: string | null;
        tool_calls?:
          | Array<ToolFragment>
          | null;
        /** The legacy single-call form, still sent by a few servers. */
        function_call?: ToolFragment["function"];
        /** Reasoning as DeepSeek, llama.cpp, LM Studio and older vLLM stream it. */
        reasoning_content?: string | null;
        /** Reasoning as vLLM, Ollama and OpenRouter stream it. */
        reasoning?: string | null;
        /** OpenRouter's structured reasoning, to be passed back unchanged. */
        reasoning_details?: ReasoningDetail[] | null;
      } | null;
      finish_reason?: string | null;
      /** A gateway's error for this choice (OpenRouter's, with `finish_reason: "error"`). */
      error?: unknown;
    }>
    | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    total_tokens?: number | null;
    /** OpenAI's report of the prompt tokens served from its cache. */
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
    /** DeepSeek's report of the same. */
    prompt_cache_hit_tokens?: number | null;
    completion_tokens_details?: { reasoning_tokens?: number | null } | null;
    /** OpenRouter's charge for the request, in its credits (US dollars). */
    cost?: number | null;
  } | null;
}

interface ToolFragment {
  index?: number;
  id?: string | null;
  /** Gemini's per-call data (`google.thought_signature`), to be passed back with the call. */
  extra_content?: Record<string, unknown> | null;
  function?: {
    name?: string | null;
    /** A string fragment; a few servers send the whole arguments as an object. */
    arguments?: string | Record<string, unknown> | null;
  } | null;
}

/** The fields every server's tool-call fragments share; any other is provider data. */
const STANDARD_CALL_FIELDS = new Set(["index", "id", "type", "function"]);

/** Where legacy `function_call` fragments gather: apart from any real index. */
const LEGACY_CALL_INDEX = -1;

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
  extra?: Record<string, unknown>;
}

export class StreamAssembler {
  text = "";
  /** The reasoning streamed so far ("" when none). */
  reasoning = "";
  /** The message field the reasoning came in, to send it back under the same name. */
  reasoningField?: "reasoning_content" | "reasoning";
  #reasoningDetails: ReasoningDetail[] = [];
  finishReason: string | null = null;
  /**
   * The error a server ended the answer with inside a choice, rather than
   * as the stream's own error event: the answer failed, it is not complete.
   */
  failure: Record<string, unknown> | undefined = undefined;
  usage: Usage | null = null;
  #calls: PartialCall[] = [];
  /** index on the wire → position in #calls */
  #slots = new Map<number, number>();

  /** The calls whose name was announced (`onToolName`). */
  readonly #announced = new Set<number>();

  constructor(
    private readonly makeId: () => string,
    /** A call's name, once its arguments begin (the name is whole by then). */
    private readonly onToolName?: (name: string) => void,
  ) {}

  /** Absorb one chunk; returns the text it added (possibly ""). Reasoning grows `reasoning`. */
  add(chunk: StreamChunk): string {
    if (chunk.usage) this.usage = mapUsage(chunk.usage);
    let added = "";
    for (const choice of chunk.choices ?? []) {
      if ((choice.index ?? 0) !== 0) continue; // we never ask for n > 1
      const delta = choice.delta;
      if (delta?.content) {
        this.text += delta.content;
        added += delta.content;
      }
      if (delta) this.#addReasoning(delta);
      for (const fragment of delta?.tool_calls ?? []) this.#addToolFragment(fragment);
      if (delta?.function_call) {
        this.#addToolFragment({ index: LEGACY_CALL_INDEX, function: delta.function_call });
      }
      if (choice.error || choice.finish_reason === "error") {
        this.failure ??= choiceError(choice.error);
      } else if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return added;
  }

  #addReasoning(delta: NonNullable<NonNullable<StreamChunk["choices"]>[number]["delta"]>): void {
    // A server in a renaming period sends the same text under both names: one is read.
    const field = typeof delta.reasoning_content === "string" && delta.reasoning_content
      ? "reasoning_content"
      : typeof delta.reasoning === "string" && delta.reasoning
      ? "reasoning"
      : undefined;
    if (field) {
      this.reasoning += delta[field];
      this.reasoningField ??= field;
    }
    if (Array.isArray(delta.reasoning_details)) {
      this.#reasoningDetails.push(...delta.reasoning_details);
    }
  }

  #addToolFragment(fragment: ToolFragment): void {
    const wireIndex = fragment.index ?? 0;
    let slot = this.#slots.get(wireIndex);
    // Some servers reuse index 0 for every call (or send none); a fresh id then means a
    // new call, and so does a different name once the call's arguments have begun (a
    // name is never continued after its arguments).
    const existing = slot === undefined ? undefined : this.#calls[slot];
    const name = fragment.function?.name;
    const freshId = Boolean(fragment.id && existing?.id && fragment.id !== existing.id);
    // The same name again starts a call only when it brings arguments of its own: a
    // fragment repeating the name with nothing else belongs to the call before.
    const nextCall = Boolean(
      name && existing?.name && existing.arguments !== "" &&
        (name !== existing.name ||
          (Boolean(fragment.function?.arguments) && isCompleteJson(existing.arguments))),
    );
    if (existing === undefined || freshId || nextCall) {
      slot = this.#calls.length;
      this.#calls.push({ id: fragment.id ?? "", name: "", arguments: "" });
      this.#slots.set(wireIndex, slot);
    }
    const call = this.#calls[slot!];
    if (fragment.id && !call.id) call.id = fragment.id;
    // Any field beyond the standard ones is the server's own (Gemini's `extra_content`
    // with its thought signature): kept as it came, to be sent back with the call.
    for (const [key, value] of Object.entries(fragment)) {
      if (STANDARD_CALL_FIELDS.has(key) || value === null || value === undefined) continue;
      (call.extra ??= {})[key] = value;
    }
    // Some servers repeat the whole name in every fragment; only a new piece is added.
    if (name && name !== call.name) call.name += name;
    const args = fragment.function?.arguments;
    if (typeof args === "string") call.arguments += args;
    else if (args && typeof args === "object") call.arguments += JSON.stringify(args);
    if (call.arguments !== "" && call.name !== "" && !this.#announced.has(slot!)) {
      this.#announced.add(slot!);
      this.onToolName?.(call.name);
    }
  }

  /** Finished tool calls, in the order the model began them. Ids are settled by the first call. */
  toolCalls(): ToolCall[] {
    return this.#calls
      .filter((call) => call.name !== "")
      .map((call) => {
        call.id ||= this.makeId();
        return {
          id: call.id,
          name: call.name,
          // An empty argument string is "no arguments"; the tool layer parses JSON.
          arguments: call.arguments === "" ? "{}" : call.arguments,
        };
      });
  }

  /**
   * What this answer asks to have sent back to `origin` (the endpoint's base
   * URL), or undefined when nothing. Call after `toolCalls()`, which settles
   * the ids the per-call fields are kept under.
   */
  providerData(origin: string): ProviderData | undefined {
    const data: ProviderData = { origin };
    if (this.reasoning && this.reasoningField) data.reasoningField = this.reasoningField;
    if (this.#reasoningDetails.length) {
      data.fields = { reasoning_details: mergeReasoningDetails(this.#reasoningDetails) };
    }
    for (const call of this.#calls) {
      if (!call.extra || call.name === "" || !call.id) continue;
      (data.calls ??= {})[call.id] = call.extra;
    }
    return data.reasoningField || data.fields || data.calls ? data : undefined;
  }
}

/** A choice's error as an error object, whatever shape it came in. */
function choiceError(error: unknown): Record<string, unknown> {
  if (error !== null && typeof error === "object") return error as Record<string, unknown>;
  if (typeof error === "string" && error) return { message: error };
  return { message: 'the server ended the answer with finish_reason "error"' };
}

/** Arguments that already parse whole cannot continue, so a fragment with a name starts anew. */
function isCompleteJson(text: string): boolean {
  if (!text.trimEnd().endsWith("}")) return false; // cheap test first: most fragments fail it
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/**
 * The endpoint's usage as counts, and its charge when it reports one. What an endpoint sends is not trusted to
 * be what the API says: a field that is not a finite, non-negative number
 * (null, a string, an object) counts as not reported.
 */
export function mapUsage(usage: NonNullable<StreamChunk["usage"]>): Usage {
  const input = tokenCount(usage.prompt_tokens) ?? 0;
  const output = tokenCount(usage.completion_tokens) ?? 0;
  const cached = tokenCount(usage.prompt_tokens_details?.cached_tokens) ??
    tokenCount(usage.prompt_cache_hit_tokens);
  const reasoning = tokenCount(usage.completion_tokens_details?.reasoning_tokens);
  const cost = usage.cost;
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: tokenCount(usage.total_tokens) ?? input + output,
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
    ...(reasoning !== undefined ? { reasoning_tokens: reasoning } : {}),
    ...(typeof cost === "number" && Number.isFinite(cost) && cost >= 0 ? { cost_usd: cost } : {}),
  };
}

function tokenCount(value: unknown): number | undefined {
  return typeof value === "number" && Number.isFinite(value) && value >= 0
    ? Math.floor(value)
    : undefined;
}

/**
 * Guarantees text reaches the user once. After a retry the new attempt starts
 * from its beginning; its deltas are held back until its text is longer than
 * what was already shown, and only the excess is passed on.
 */
export class TextDeliveryGuard {
  #delivered = 0;

  constructor(private readonly deliver: (delta: string) => void) {}

  /** `attemptText` is the whole text of the current attempt so far. */
  offer(attemptText: string): void {
    if (attemptText.length <= this.#delivered) return;
    const fresh = attemptText.slice(this.#delivered);
    this.#delivered = attemptText.length;
    this.deliver(fresh);
  }
}
