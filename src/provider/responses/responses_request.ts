/**
 * The Responses API's request body (`POST /responses`) written from the
 * session's history, which is kept in the Chat Completions shape: the system
 * prompt becomes `instructions`, an assistant message its reasoning items
 * (when they were kept), its text and one `function_call` per call, a tool
 * message a `function_call_output`. Nothing is stored on the server
 * (`store: false`): the reasoning comes back encrypted
 * (`include: ["reasoning.encrypted_content"]`) and is sent again with the
 * calls it led to, which is how a reasoning model keeps its thread.
 *
 * A session sends its whole history each turn and the history only grows at
 * its end, so, as for Chat Completions (request_body.ts), each message's
 * items are serialised once, kept against the message object, and the body
 * is joined from those pieces: a turn writes only the messages it added. A
 * piece is reused only while its message holds the very content, calls and
 * reasoning it was made from.
 */
import { outputLimitField } from "../model_limits.ts";
import { ToolSchemasJson } from "../chat/request_body.ts";
import type { AssistantMessage, ChatMessage, ToolSchema } from "../types.ts";
import { EFFORT_FIELD, effortIn } from "../dialects/reasoning_effort.ts";
import { RefusedFields } from "../refused_fields.ts";

/** A reasoning output item as the server sent it, passed back unchanged. */
export interface ReasoningItem {
  type: "reasoning";
  id: string;
  summary: unknown[];
  encrypted_content?: string | null;
  [field: string]: unknown;
}

/**
 * An optional field a server may refuse: `reasoning` (a summary and the
 * effort), `include` (encrypted reasoning), or the effort alone.
 */
export type OptionalField = "reasoning" | "include" | typeof EFFORT_FIELD;

export interface ResponsesRequestOptions {
  /** The reasoning items that led to the call `callId` of `message`, when they were kept. */
  reasoningFor(message: AssistantMessage, callId: string): ReasoningItem[] | undefined;
  /** Fields the server refused, shared with the client. @default the writer's own */
  refused?: RefusedFields;
}

interface Piece {
  content: string | null;
  calls: unknown;
  /** The reasoning each call resolved to, by identity. */
  reasoning: (ReasoningItem[] | undefined)[];
  /** The message's items as JSON array elements joined by commas, UTF-8; empty when it has none. */
  json: Uint8Array;
}

/** What a body was written from, to write it again without a refused field. */
interface Written {
  fields: Record<string, unknown>;
  messages: readonly ChatMessage[];
  tools: readonly ToolSchema[];
}

const encoder = new TextEncoder();
const COMMA = encoder.encode(",");

/** Writes Responses API bodies for one provider, keeping each message's piece between requests. */
export class ResponsesRequestWriter {
  #pieces = new WeakMap<ChatMessage, Piece>();
  #tools = new ToolSchemasJson((tool) => ({
    type: "function",
    name: tool.name,
    description: tool.description,
    parameters: tool.parameters,
    strict: false,
  }));
  #written = new WeakMap<Uint8Array, Written>();
  /** Each optional field a server refused for a model: not asked for again. */
  readonly #refused: RefusedFields;
  #serialised = 0;
  readonly #options: ResponsesRequestOptions;

  constructor(options: ResponsesRequestOptions) {
    this.#options = options;
    this.#refused = options.refused ?? new RefusedFields();
  }

  /** Messages serialised so far (a message sent in many requests counts once). */
  get serialised(): number {
    return this.#serialised;
  }

  /**
   * The body for `messages` and `tools`, with `fields` as the Chat
   * Completions client chose them (model, output limit, temperature).
   */
  body(
    fields: Record<string, unknown>,
    messages: readonly ChatMessage[],
    tools: readonly ToolSchema[],
  ): Uint8Array<ArrayBuffer> {
    const model = String(fields.model ?? "");
    const first = messages[0];
    const instructions = first?.role === "system" ? first.content : undefined;
    const head = `{"model":${JSON.stringify(model)}` +
      (instructions !== undefined ? `,"instructions":${JSON.stringify(instructions)}` : "") +
      `,"input":[`;
    const parts: Uint8Array[] = [encoder.encode(head)];
    let empty = true;
    messages.forEach((message, index) => {
      if (index === 0 && instructions !== undefined) return;
      const piece = this.#piece(message);
      if (!piece.length) return;
      if (!empty) parts.push(COMMA);
      parts.push(piece);
      empty = false;
    });
    const limit = fields.max_output_tokens ?? fields.max_completion_tokens ?? fields.max_tokens;
    const effort = this.#asks(model, EFFORT_FIELD, fields) ? effortIn(fields) : undefined;
    const rest = {
      stream: true,
      store: false,
      ...(this.#asks(model, "include", fields) ? { include: ["reasoning.encrypted_content"] } : {}),
      ...(this.#asks(model, "reasoning", fields)
        ? { reasoning: { ...(effort ? { effort } : {}), summary: "auto" } }
        : {}),
      ...(typeof limit === "number" ? { max_output_tokens: limit } : {}),
      ...(typeof fields.temperature === "number" ? { temperature: fields.temperature } : {}),
    };
    const toolsText = tools.length ? `,"tools":${this.#tools.json(tools)}` : "";
    parts.push(encoder.encode(`]${toolsText},${JSON.stringify(rest).slice(1)}`));
    // One buffer copied from the pieces: a copy is cheap beside reading a Blob of hundreds of parts.
    const body = new Uint8Array(parts.reduce((sum, part) => sum + part.length, 0));
    let at = 0;
    for (const part of parts) {
      body.set(part, at);
      at += part.length;
    }
    this.#written.set(body, { fields, messages, tools });
    return body;
  }

  /**
   * `body` written again without `field`, which the server refused for its
   * model; that model is not asked for it again. Undefined when `body` did
   * not ask for it (or is not one of ours): there is nothing to leave out.
   */
  without(body: unknown, field: OptionalField): Uint8Array<ArrayBuffer> | undefined {
    const written = body instanceof Uint8Array ? this.#written.get(body) : undefined;
    if (!written) return undefined;
    const model = String(written.fields.model ?? "");
    if (!this.#asks(model, field, written.fields)) return undefined;
    this.#refused.refuse(model, field);
    return this.body(written.fields, written.messages, written.tools);
  }

  /** Whether a request for `model` with the client's `fields` carries `field`. */
  #asks(model: string, field: OptionalField, fields: Record<string, unknown>): boolean {
    if (!this.#refused.allows(model, field)) return false;
    const effort = effortIn(fields) !== undefined && this.#refused.allows(model, EFFORT_FIELD);
    if (field === EFFORT_FIELD) return effort && this.#asks(model, "reasoning", fields);
    // An effort the user set makes any model a reasoning one.
    return field === "include" || reasonsAloud(model) || effort;
  }

  #piece(message: ChatMessage): Uint8Array {
    const calls = message.role === "assistant" ? message.tool_calls : undefined;
    const reasoning = message.role === "assistant"
      ? (calls ?? []).map((call) => this.#options.reasoningFor(message, call.id))
      : [];
    const cached = this.#pieces.get(message);
    if (
      cached && cached.content === message.content && cached.calls === calls &&
      cached.reasoning.length === reasoning.length &&
      cached.reasoning.every((items, index) => items === reasoning[index])
    ) {
      return cached.json;
    }
    const items = itemsOf(message, reasoning);
    const json = encoder.encode(items.map((item) => JSON.stringify(item)).join(","));
    this.#serialised++;
    this.#pieces.set(message, { content: message.content, calls, reasoning, json });
    return json;
  }
}

/** Models that take `reasoning: {summary}`: OpenAI's reasoning families and the codex models. */
function reasonsAloud(model: string): boolean {
  return outputLimitField(model) === "max_completion_tokens" || /codex/i.test(model);
}

/**
 * One message as input items. A system message past the first is the
 * developer's. An assistant message: the reasoning behind its calls first (a
 * reasoning item must be followed by what it led to), then its text, then
 * its calls, which go without their server item ids, so a call whose
 * reasoning was not kept (a session from another provider) is still accepted.
 */
function itemsOf(message: ChatMessage, reasoning: (ReasoningItem[] | undefined)[]): unknown[] {
  switch (message.role) {
    case "system":
      return [{ role: "developer", content: message.content }];
    case "user":
      return [{ role: "user", content: message.content }];
    case "tool":
      return [{
        type: "function_call_output",
        call_id: message.tool_call_id,
        output: message.content,
      }];
    case "assistant": {
      const items: unknown[] = [];
      const seen = new Set<string>();
      for (const item of reasoning.flatMap((list) => list ?? [])) {
        // Without its encrypted content a reasoning item names state the server did not keep.
        if (!item.encrypted_content || seen.has(item.id)) continue;
        seen.add(item.id);
        items.push(item);
      }
      if (message.content) items.push({ role: "assistant", content: message.content });
      for (const call of message.tool_calls ?? []) {
        items.push({
          type: "function_call",
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        });
      }
      return items;
    }
  }
}
