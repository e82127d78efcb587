/**
 * Stored messages and parts turned back into the Chat Completions history a
 * resumed session sends. A process killed mid-tool leaves calls without
 * results; those get a synthetic result so the history stays valid and the
 * model knows the call did not finish.
 */
import type { ChatMessage, ToolCall } from "../provider/types.ts";

/** The payloads the loop stores, one per part. */
export type StoredPart =
  /** `interrupted`: an answer cut off mid-stream (Ctrl-C, a time limit, a failed connection). */
  | { type: "text"; text: string; interrupted?: boolean }
  | { type: "tool_call"; call_id: string; name: string; arguments: string }
  | {
    type: "tool_result";
    call_id: string;
    tool: string;
    ok: boolean;
    output: string;
    error?: { code: string; message: string; hint?: string };
    metadata?: Record<string, unknown>;
  };

export interface StoredMessage {
  role: "user" | "assistant" | "tool";
  parts: StoredPart[];
}

export const INTERRUPTED_RESULT =
  "This call was interrupted before it finished (the process stopped). Its effect is unknown: check the state before relying on it.";

/** Ends an answer that was cut off, so the model knows it stopped there. */
export const INTERRUPTED_ANSWER =
  "[This answer was interrupted here and not finished: the user stopped it, or the connection failed.]";

export function toChatHistory(messages: StoredMessage[]): ChatMessage[] {
  const history: ChatMessage[] = [];
  let pending: ToolCall[] = [];
  const flushPending = () => {
    for (const call of pending) {
      history.push({ role: "tool", tool_call_id: call.id, content: INTERRUPTED_RESULT });
    }
    pending = [];
  };
  for (const message of messages) {
    if (message.role === "tool") {
      for (const part of message.parts) {
        if (part.type !== "tool_result") continue;
        const index = pending.findIndex((call) => call.id === part.call_id);
        if (index === -1) continue; // a result without its call cannot be sent
        pending.splice(index, 1);
        history.push({ role: "tool", tool_call_id: part.call_id, content: resultText(part) });
      }
      continue;
    }
    flushPending();
    const text = message.parts.filter((part) => part.type === "text").map((part) =>
      part.interrupted ? `${part.text}${part.text ? "\n\n" : ""}${INTERRUPTED_ANSWER}` : part.text
    ).join("");
    if (message.role === "user") {
      history.push({ role: "user", content: text });
      continue;
    }
    const calls: ToolCall[] = message.parts.flatMap((part) =>
      part.type === "tool_call"
        ? [{ id: part.call_id, name: part.name, arguments: part.arguments }]
        : []
    );
    // An empty answer (out of tokens before any text) says nothing, and
    // endpoints refuse an assistant message with neither content nor calls.
    if (!text && !calls.length) continue;
    history.push({
      role: "assistant",
      content: text || null,
      ...(calls.length ? { tool_calls: calls } : {}),
    });
    pending = [...calls];
  }
  flushPending();
  return history;
}

/** What the model reads for one tool result. */
export function resultText(part: Extract<StoredPart, { type: "tool_result" }>): string {
  if (part.ok) return part.output;
  const error = part.error;
  if (!error) return part.output;
  return `Error [${error.code}]: ${error.message}${error.hint ? `\nHint: ${error.hint}` : ""}`;
}
