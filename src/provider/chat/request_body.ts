/**
 * The JSON text of a chat request, assembled from pieces serialised once.
 * A session sends its whole history with every request, and the history
 * only grows at its end: serialising all of it each turn made a turn's cost
 * grow with the session (docs/performance.md). Here each message's wire JSON is
 * kept against the message object and the body is joined from the pieces,
 * so a turn serialises only the messages it added.
 *
 * Messages are treated as values: context management changes one by putting
 * a new object in its place (pruning, a summary, a resumed session's replay),
 * which has no piece yet. A message edited in place is caught too: a piece
 * is reused only while the message still holds the very content and calls it
 * was made from.
 *
 * Each message is written for the server it goes to: what another server
 * wrote for itself (ProviderData) goes back only to that server, and the
 * dialect's rules (dialects/) apply.
 */
import type { ChatMessage, ToolSchema } from "../types.ts";
import type { Dialect } from "../dialects/dialect.ts";
import { BRIDGE_AFTER_TOOLS, mistralCallId } from "../dialects/mistral.ts";

interface Piece {
  content: string | null;
  calls: unknown;
  /** The message's wire JSON, as UTF-8 held outside the JavaScript heap. */
  json: Blob;
}

const COMMA = new Blob([","]);

/** Where the requests go. */
export interface WireTarget {
  /** The endpoint's base URL: fields a message got from it are sent back to it alone. */
  origin: string;
  /** @default "standard" */
  dialect?: Dialect;
}

/** A request's JSON text: a Blob of pieces, or UTF-8 bytes. */
export type RequestBody = Blob | Uint8Array<ArrayBuffer>;

/** What writes a request's JSON text from its parts. */
export interface RequestBodyBuilder {
  /** The JSON of `fields` (model, stream, limits…) with the messages and the tools. */
  body(
    fields: Record<string, unknown>,
    messages: readonly ChatMessage[],
    tools: ToolSchema[],
  ): RequestBody;
}

export class RequestBodyWriter implements RequestBodyBuilder {
  #messages = new WeakMap<ChatMessage, Piece>();
  #tools = new ToolSchemasJson((tool) => ({
    type: "function",
    function: { name: tool.name, description: tool.description, parameters: tool.parameters },
  }));
  #serialised = 0;
  readonly #target: WireTarget;
  readonly #bridge: Blob;

  constructor(target: WireTarget = { origin: "" }) {
    this.#target = target;
    this.#bridge = new Blob([JSON.stringify(BRIDGE_AFTER_TOOLS)]);
  }

  /** Messages serialised so far (a message sent in many requests counts once). */
  get serialised(): number {
    return this.#serialised;
  }

  /** The wire JSON of one message, from the cache when it has not changed. */
  message(message: ChatMessage): Blob {
    const calls = message.role === "assistant" ? message.tool_calls : undefined;
    const cached = this.#messages.get(message);
    if (cached && cached.content === message.content && cached.calls === calls) return cached.json;
    const json = new Blob([JSON.stringify(toWireMessage(message, this.#target))]);
    this.#serialised++;
    this.#messages.set(message, { content: message.content, calls, json });
    return json;
  }

  /**
   * The request's JSON: `fields` (model, stream, limits…) with the messages
   * and, when there are any, the tools. A Blob made of the cached pieces, so
   * a request copies no message (fetch reads the pieces as it sends them).
   */
  body(fields: Record<string, unknown>, messages: readonly ChatMessage[], tools: ToolSchema[]) {
    const parts: BlobPart[] = ['{"messages":['];
    const mistral = this.#target.dialect === "mistral";
    messages.forEach((message, index) => {
      if (index > 0) parts.push(COMMA);
      if (mistral && message.role === "user" && messages[index - 1]?.role === "tool") {
        parts.push(this.#bridge, COMMA);
      }
      parts.push(this.message(message));
    });
    const rest = JSON.stringify(fields);
    const toolsText = tools.length ? `,"tools":${this.#tools.json(tools)}` : "";
    parts.push(`]${toolsText}${rest === "{}" ? "" : `,${rest.slice(1, -1)}`}}`);
    return new Blob(parts, { type: "application/json" });
  }
}

/**
 * The JSON of a session's tool schemas, written by `write`. They are the
 * same array every turn of a session: serialised again only when changed.
 */
export class ToolSchemasJson {
  #cache = new WeakMap<readonly ToolSchema[], { schemas: ToolSchema[]; json: string }>();
  readonly #write: (tool: ToolSchema) => unknown;

  constructor(write: (tool: ToolSchema) => unknown) {
    this.#write = write;
  }

  /** The JSON array of `tools`, from the cache while the array and its schemas are the same. */
  json(tools: readonly ToolSchema[]): string {
    const cached = this.#cache.get(tools);
    const same = cached?.schemas.length === tools.length &&
      cached.schemas.every((schema, index) => schema === tools[index]);
    if (cached && same) return cached.json;
    const json = JSON.stringify(tools.map(this.#write));
    this.#cache.set(tools, { schemas: [...tools], json });
    return json;
  }
}

/**
 * Our message shape → the wire shape for `target` (tool calls nest under
 * `function`; a server's own fields go back to it alone).
 */
export function toWireMessage(
  message: ChatMessage,
  target: WireTarget = { origin: "" },
): Record<string, unknown> {
  const mistral = target.dialect === "mistral";
  const callId = mistral ? mistralCallId : (id: string) => id;
  if (message.role === "tool" && mistral) {
    return { role: "tool", tool_call_id: callId(message.tool_call_id), content: message.content };
  }
  if (message.role !== "assistant") return message;
  const own = message.providerData?.origin === target.origin ? message.providerData : undefined;
  const calls = message.tool_calls ?? [];
  const wire: Record<string, unknown> = { role: "assistant", content: message.content };
  // Reasoning goes back where it is needed: with the calls it led to (DeepSeek
  // refuses the next request without it); elsewhere servers ignore it.
  if (own?.reasoningField && message.reasoning && calls.length) {
    wire[own.reasoningField] = message.reasoning;
  }
  if (target.dialect === "deepseek" && calls.length && wire.reasoning_content === undefined) {
    wire.reasoning_content = "";
  }
  if (own?.fields) Object.assign(wire, own.fields);
  if (calls.length) {
    wire.tool_calls = calls.map((call) => ({
      id: callId(call.id),
      type: "function",
      function: { name: call.name, arguments: call.arguments },
      ...own?.calls?.[call.id],
    }));
  }
  return wire;
}
