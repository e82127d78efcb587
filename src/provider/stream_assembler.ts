/**
 * Builds one answer out of streamed Chat Completions chunks: text, tool calls
 * (several at once, each assembled from argument fragments by its index),
 * the finish reason and usage. One assembler per attempt; what the user has
 * already seen across attempts is tracked by `TextDeliveryGuard`.
 */
import type { Usage } from "../contracts/events.ts";
import type { ToolCall } from "./types.ts";

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
      } | null;
      finish_reason?: string | null;
    }>
    | null;
  usage?: {
    prompt_tokens?: number | null;
    completion_tokens?: number | null;
    total_tokens?: number | null;
    /** OpenAI's report of the prompt tokens served from its cache. */
    prompt_tokens_details?: { cached_tokens?: number | null } | null;
  } | null;
}

interface ToolFragment {
  index?: number;
  id?: string | null;
  function?: {
    name?: string | null;
    /** A string fragment; a few servers send the whole arguments as an object. */
    arguments?: string | Record<string, unknown> | null;
  } | null;
}

/** Where legacy `function_call` fragments gather: apart from any real index. */
const LEGACY_CALL_INDEX = -1;

interface PartialCall {
  id: string;
  name: string;
  arguments: string;
}

export class StreamAssembler {
  text = "";
  finishReason: string | null = null;
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

  /** Absorb one chunk; returns the text it added (possibly ""). */
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
      for (const fragment of delta?.tool_calls ?? []) this.#addToolFragment(fragment);
      if (delta?.function_call) {
        this.#addToolFragment({ index: LEGACY_CALL_INDEX, function: delta.function_call });
      }
      if (choice.finish_reason) this.finishReason = choice.finish_reason;
    }
    return added;
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

  /** Finished tool calls, in the order the model began them. */
  toolCalls(): ToolCall[] {
    return this.#calls
      .filter((call) => call.name !== "")
      .map((call) => ({
        id: call.id || this.makeId(),
        name: call.name,
        // An empty argument string is "no arguments"; the tool layer parses JSON.
        arguments: call.arguments === "" ? "{}" : call.arguments,
      }));
  }
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
 * The endpoint's usage as counts. What an endpoint sends is not trusted to
 * be what the API says: a field that is not a finite, non-negative number
 * (null, a string, an object) counts as not reported.
 */
export function mapUsage(usage: NonNullable<StreamChunk["usage"]>): Usage {
  const input = tokenCount(usage.prompt_tokens) ?? 0;
  const output = tokenCount(usage.completion_tokens) ?? 0;
  const cached = tokenCount(usage.prompt_tokens_details?.cached_tokens);
  return {
    input_tokens: input,
    output_tokens: output,
    total_tokens: tokenCount(usage.total_tokens) ?? input + output,
    ...(cached !== undefined ? { cached_input_tokens: cached } : {}),
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
