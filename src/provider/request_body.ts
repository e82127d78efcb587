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
 */
import type { ChatMessage, ToolSchema } from "./types.ts";

interface Piece {
  content: string | null;
  calls: unknown;
  /** The message's wire JSON, as UTF-8 held outside the JavaScript heap. */
  json: Blob;
}

const COMMA = new Blob([","]);

export class RequestBodyWriter {
  #messages = new WeakMap<ChatMessage, Piece>();
  #tools = new WeakMap<readonly ToolSchema[], { schemas: ToolSchema[]; json: string }>();
  #serialised = 0;

  /** Messages serialised so far (a message sent in many requests counts once). */
  get serialised(): number {
    return this.#serialised;
  }

  /** The wire JSON of one message, from the cache when it has not changed. */
  message(message: ChatMessage): Blob {
    const calls = message.role === "assistant" ? message.tool_calls : undefined;
    const cached = this.#messages.get(message);
    if (cached && cached.content === message.content && cached.calls === calls) return cached.json;
    const json = new Blob([JSON.stringify(toWireMessage(message))]);
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
    messages.forEach((message, index) => {
      if (index > 0) parts.push(COMMA);
      parts.push(this.message(message));
    });
    const rest = JSON.stringify(fields);
    const toolsText = tools.length ? `,"tools":${this.#toolsJson(tools)}` : "";
    parts.push(`]${toolsText}${rest === "{}" ? "" : `,${rest.slice(1, -1)}`}}`);
    return new Blob(parts, { type: "application/json" });
  }

  /** The tool schemas are the same array every turn of a session: serialised while unchanged. */
  #toolsJson(tools: ToolSchema[]): string {
    const cached = this.#tools.get(tools);
    const same = cached?.schemas.length === tools.length &&
      cached.schemas.every((schema, index) => schema === tools[index]);
    if (cached && same) return cached.json;
    const json = JSON.stringify(tools.map((tool) => ({
      type: "function",
      function: { name: tool.name, description: tool.description, parameters: tool.parameters },
    })));
    this.#tools.set(tools, { schemas: [...tools], json });
    return json;
  }
}

/** Our message shape → the wire shape (tool calls nest under `function`). */
export function toWireMessage(message: ChatMessage): Record<string, unknown> {
  if (message.role !== "assistant" || !message.tool_calls?.length) return message;
  return {
    role: "assistant",
    content: message.content,
    tool_calls: message.tool_calls.map((call) => ({
      id: call.id,
      type: "function",
      function: { name: call.name, arguments: call.arguments },
    })),
  };
}
