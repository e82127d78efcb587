/**
 * A Chat Completions request, as the client serialised it, rewritten as the
 * Responses API's (`POST /responses`). The session keeps its history in the
 * Chat Completions shape; this is where it becomes input items: the system
 * prompt becomes `instructions`, an assistant message its reasoning items
 * (when the provider kept them), its text and one `function_call` per call,
 * a tool message a `function_call_output`. Nothing is stored on the server
 * (`store: false`): the reasoning comes back encrypted
 * (`include: ["reasoning.encrypted_content"]`) and is sent again with the
 * calls it led to, which is how a reasoning model keeps its thread.
 */

/** A reasoning output item as the server sent it, passed back unchanged. */
export interface ReasoningItem {
  type: "reasoning";
  id: string;
  summary: unknown[];
  encrypted_content?: string | null;
  [field: string]: unknown;
}

interface WireToolCall {
  id?: string;
  function?: { name?: string; arguments?: string };
}

interface WireMessage {
  role?: string;
  content?: unknown;
  tool_calls?: WireToolCall[];
  tool_call_id?: string;
}

interface WireTool {
  function?: { name?: string; description?: string; parameters?: unknown };
}

export interface ResponsesRequestOptions {
  /** The reasoning items that led to the call with this id, when they were kept. */
  reasoningFor(callId: string): ReasoningItem[] | undefined;
  /** Ask for a reasoning summary: only reasoning models accept the `reasoning` field. */
  askReasoning: boolean;
  /** Ask for the reasoning's encrypted content, to pass it back. @default true */
  askEncrypted?: boolean;
}

/** The Responses API body for a Chat Completions body (`chat`, already parsed). */
export function responsesRequest(
  chat: Record<string, unknown>,
  options: ResponsesRequestOptions,
): Record<string, unknown> {
  const messages = Array.isArray(chat.messages) ? chat.messages as WireMessage[] : [];
  const input: unknown[] = [];
  let instructions: string | undefined;
  messages.forEach((message, index) => {
    const text = textOf(message.content);
    if (message.role === "system") {
      if (index === 0) instructions = text;
      else input.push({ role: "developer", content: text });
    } else if (message.role === "user") {
      input.push({ role: "user", content: text });
    } else if (message.role === "assistant") {
      input.push(...assistantItems(message, text, options));
    } else if (message.role === "tool") {
      input.push({ type: "function_call_output", call_id: message.tool_call_id, output: text });
    }
  });
  const tools = Array.isArray(chat.tools) ? (chat.tools as WireTool[]) : [];
  const limit = chat.max_output_tokens ?? chat.max_completion_tokens ?? chat.max_tokens;
  return {
    model: chat.model,
    ...(instructions !== undefined ? { instructions } : {}),
    input,
    ...(tools.length
      ? {
        tools: tools.map((tool) => ({
          type: "function",
          name: tool.function?.name,
          description: tool.function?.description,
          parameters: tool.function?.parameters,
          strict: false,
        })),
      }
      : {}),
    stream: true,
    store: false,
    ...(options.askEncrypted !== false ? { include: ["reasoning.encrypted_content"] } : {}),
    ...(options.askReasoning ? { reasoning: { summary: "auto" } } : {}),
    ...(typeof limit === "number" ? { max_output_tokens: limit } : {}),
    ...(typeof chat.temperature === "number" ? { temperature: chat.temperature } : {}),
  };
}

/**
 * One assistant message as items: the reasoning behind its calls first (a
 * reasoning item must be followed by what it led to), then its text, then
 * its calls. The calls go without their server item ids, so a call whose
 * reasoning was not kept (a session from another provider) is still accepted.
 */
function assistantItems(
  message: WireMessage,
  text: string,
  options: ResponsesRequestOptions,
): unknown[] {
  const calls = message.tool_calls ?? [];
  const items: unknown[] = [];
  const seen = new Set<string>();
  for (const call of calls) {
    for (const item of (call.id && options.reasoningFor(call.id)) || []) {
      // Without its encrypted content a reasoning item names state the server did not keep.
      if (!item.encrypted_content || seen.has(item.id)) continue;
      seen.add(item.id);
      items.push(item);
    }
  }
  if (text) items.push({ role: "assistant", content: text });
  for (const call of calls) {
    items.push({
      type: "function_call",
      call_id: call.id,
      name: call.function?.name,
      arguments: call.function?.arguments ?? "",
    });
  }
  return items;
}

/** A message's text: a string, or the text parts of a content array. */
function textOf(content: unknown): string {
  if (typeof content === "string") return content;
  if (!Array.isArray(content)) return "";
  return content.map((part) =>
    typeof part === "object" && part !== null && typeof part.text === "string" ? part.text : ""
  ).join("");
}
