/**
 * The Responses API's event stream, read as Chat Completions chunks, so the
 * one client (its retries, timeouts, text guard and assembler) serves both
 * wire protocols. The events read are those OpenAI documents
 * (https://platform.openai.com/docs/api-reference/responses-streaming):
 * `response.output_text.delta`, `response.output_item.added` / `.done` (a
 * function call, a message, a reasoning item), `response.function_call_arguments.delta`
 * / `.done`, the reasoning text (`response.reasoning_summary_text.delta`, and
 * `response.reasoning_text.delta` from servers that show the reasoning
 * itself), and the end: `response.completed` or `response.incomplete` with
 * usage, `response.failed` or `error`. Servers that send whole items without
 * the deltas, or one JSON response instead of a stream, read the same.
 */
import type { ReasoningItem } from "./responses_request.ts";

/** What one answer carried besides the chunks: the reasoning, for the caller to keep. */
export interface ResponsesCapture {
  /** The reasoning text shown, summaries joined. */
  reasoning: string;
  /** Reasoning items, in order, with their encrypted content. */
  items: ReasoningItem[];
}

interface ResponsesEvent {
  type?: string;
  delta?: unknown;
  arguments?: unknown;
  item?: Record<string, unknown>;
  item_id?: string;
  output_index?: number;
  summary_index?: number;
  response?: {
    output?: Record<string, unknown>[];
    usage?: ResponsesUsage;
    error?: unknown;
    incomplete_details?: { reason?: string } | null;
  };
  code?: unknown;
  message?: unknown;
}

interface ResponsesUsage {
  input_tokens?: number;
  output_tokens?: number;
  total_tokens?: number;
  input_tokens_details?: { cached_tokens?: number };
  output_tokens_details?: { reasoning_tokens?: number };
}

interface CallState {
  index: number;
  /** Arguments sent so far, to send what a `.done` adds to the deltas (or all of it). */
  sent: string;
}

/**
 * Turns Responses events into Chat Completions chunks (each a JSON text, or
 * "[DONE]"), keeping the reasoning in `capture`. `onReasoning` hears each
 * piece of reasoning text as it comes.
 */
export class ResponsesTranslator {
  readonly capture: ResponsesCapture = { reasoning: "", items: [] };
  #calls = new Map<string, CallState>();
  #textItems = new Set<string>();
  #lastSummary = "";
  #ended = false;

  constructor(private readonly onReasoning?: (delta: string) => void) {}

  /** True once the answer ended (completed, incomplete or failed). */
  get ended(): boolean {
    return this.#ended;
  }

  /** The chunks one event stands for. */
  event(event: ResponsesEvent): string[] {
    switch (event.type) {
      case "response.output_text.delta":
      case "response.refusal.delta": // the model declining is its answer too
        if (typeof event.delta !== "string" || !event.delta) return [];
        if (event.item_id) this.#textItems.add(event.item_id);
        return [chunk({ content: event.delta })];
      case "response.reasoning_summary_text.delta":
      case "response.reasoning_text.delta":
        return this.#reasoning(event);
      case "response.output_item.added":
        return event.item?.type === "function_call" ? this.#callArguments(event.item, "") : [];
      case "response.function_call_arguments.delta":
        return this.#argumentsDelta(event);
      case "response.function_call_arguments.done":
        return this.#argumentsDone(event);
      case "response.output_item.done":
        return this.#itemDone(event.item ?? {});
      case "response.completed":
      case "response.incomplete":
        return this.#end(event);
      case "response.failed":
        this.#ended = true;
        return [JSON.stringify({ error: event.response?.error ?? { message: "response failed" } })];
      case "error":
        this.#ended = true;
        return [JSON.stringify({ error: { message: event.message, code: event.code } })];
      default:
        return [];
    }
  }

  /** A whole response object (a server that answered without streaming): its items, then its end. */
  response(response: NonNullable<ResponsesEvent["response"]>): string[] {
    const chunks = (response.output ?? []).flatMap((item) => this.#itemDone(item));
    return [...chunks, ...this.#end({ type: "response.completed", response })];
  }

  #reasoning(event: ResponsesEvent): string[] {
    if (typeof event.delta !== "string" || !event.delta) return [];
    // Summary parts of one answer read as paragraphs.
    const part = `${event.item_id}:${event.summary_index ?? 0}`;
    const text = this.capture.reasoning && part !== this.#lastSummary
      ? `\n\n${event.delta}`
      : event.delta;
    this.#lastSummary = part;
    this.capture.reasoning += text;
    this.onReasoning?.(text);
    return [chunk({ reasoning: text })];
  }

  /** Announces a call (its id and name) with `more` arguments; once per call. */
  #callArguments(item: Record<string, unknown>, more: string): string[] {
    const key = String(item.id ?? item.call_id);
    if (this.#calls.has(key)) return [];
    const state = { index: this.#calls.size, sent: more };
    this.#calls.set(key, state);
    return [chunk({
      tool_calls: [{
        index: state.index,
        id: String(item.call_id ?? item.id),
        type: "function",
        function: { name: String(item.name ?? ""), arguments: more },
      }],
    })];
  }

  #argumentsDelta(event: ResponsesEvent): string[] {
    const state = this.#calls.get(String(event.item_id));
    if (!state || typeof event.delta !== "string" || !event.delta) return [];
    state.sent += event.delta;
    return [chunk({ tool_calls: [{ index: state.index, function: { arguments: event.delta } }] })];
  }

  #argumentsDone(event: ResponsesEvent): string[] {
    const state = this.#calls.get(String(event.item_id));
    if (!state || typeof event.arguments !== "string") return [];
    return this.#rest(state, event.arguments);
  }

  #itemDone(item: Record<string, unknown>): string[] {
    if (item.type === "reasoning") {
      this.capture.items.push(item as unknown as ReasoningItem);
      return [];
    }
    if (item.type === "function_call") {
      const whole = typeof item.arguments === "string" ? item.arguments : "";
      const state = this.#calls.get(String(item.id ?? item.call_id));
      return state ? this.#rest(state, whole) : this.#callArguments(item, whole);
    }
    if (item.type === "message" && !this.#textItems.has(String(item.id))) {
      this.#textItems.add(String(item.id));
      const text = (Array.isArray(item.content) ? item.content : [])
        .map((
          part,
        ) => (part?.type === "output_text" && typeof part.text === "string" ? part.text : ""))
        .join("");
      return text ? [chunk({ content: text })] : [];
    }
    return [];
  }

  /** What the whole arguments add to those already sent (all of them when none were streamed). */
  #rest(state: CallState, whole: string): string[] {
    if (!whole.startsWith(state.sent) || whole === state.sent) return [];
    const more = whole.slice(state.sent.length);
    state.sent = whole;
    return [chunk({ tool_calls: [{ index: state.index, function: { arguments: more } }] })];
  }

  #end(event: ResponsesEvent): string[] {
    this.#ended = true;
    const reason = event.response?.incomplete_details?.reason;
    const finish = event.type === "response.incomplete"
      ? reason === "max_output_tokens" ? "length" : reason ?? "stop"
      : this.#calls.size
      ? "tool_calls"
      : "stop";
    const usage = event.response?.usage;
    return [
      JSON.stringify({
        object: "chat.completion.chunk",
        choices: [{ index: 0, delta: {}, finish_reason: finish }],
      }),
      ...(usage
        ? [
          JSON.stringify({ object: "chat.completion.chunk", choices: [], usage: chatUsage(usage) }),
        ]
        : []),
      "[DONE]",
    ];
  }
}

/** Responses usage in Chat Completions' names, reasoning and cached tokens included. */
function chatUsage(usage: ResponsesUsage): Record<string, unknown> {
  return {
    prompt_tokens: usage.input_tokens,
    completion_tokens: usage.output_tokens,
    total_tokens: usage.total_tokens,
    ...(usage.input_tokens_details?.cached_tokens !== undefined
      ? { prompt_tokens_details: { cached_tokens: usage.input_tokens_details.cached_tokens } }
      : {}),
    ...(usage.output_tokens_details?.reasoning_tokens !== undefined
      ? {
        completion_tokens_details: {
          reasoning_tokens: usage.output_tokens_details.reasoning_tokens,
        },
      }
      : {}),
  };
}

function chunk(delta: Record<string, unknown>): string {
  return JSON.stringify({
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta, finish_reason: null }],
  });
}

/**
 * The `data:` payloads of a server-sent event stream, as they complete.
 * Comments and other fields are skipped; a payload spans its `data:` lines.
 */
export async function* serverSentData(body: ReadableStream<Uint8Array>): AsyncGenerator<string> {
  let buffered = "";
  let data: string[] = [];
  for await (const text of body.pipeThrough(new TextDecoderStream())) {
    buffered += text;
    let newline;
    while ((newline = buffered.search(/\r\n|\r|\n/)) !== -1) {
      // A CR at the end may be the first half of a CRLF still on its way.
      if (buffered[newline] === "\r" && newline === buffered.length - 1) break;
      const line = buffered.slice(0, newline);
      buffered = buffered.slice(newline + (buffered.startsWith("\r\n", newline) ? 2 : 1));
      if (line === "") {
        if (data.length) yield data.join("\n");
        data = [];
      } else if (line.startsWith("data:")) {
        data.push(line.slice(line.startsWith("data: ") ? 6 : 5));
      }
    }
  }
  if (buffered.startsWith("data:")) {
    data.push(buffered.slice(buffered.startsWith("data: ") ? 6 : 5));
  }
  if (data.length) yield data.join("\n");
}
