/**
 * Stored messages and parts turned back into the Chat Completions history a
 * resumed session sends. A process killed mid-tool leaves calls without
 * results; those get a synthetic result so the history stays valid and the
 * model knows the call did not finish.
 */
import type { ChatMessage, ProviderData, ToolCall } from "../../provider/types.ts";

/** The payloads the loop stores, one per part. */
export type StoredPart =
  /** `interrupted`: an answer cut off mid-stream (Ctrl-C, a time limit, a failed connection). */
  | { type: "text"; text: string; interrupted?: boolean }
  /** What the model thought before answering (shown dimmed, exported, sent back where needed). */
  | { type: "reasoning"; text: string }
  /** Fields only the server that wrote the message reads, sent back to it alone (ProviderData). */
  | { type: "provider_data"; data: ProviderData }
  | { type: "tool_call"; call_id: string; name: string; arguments: string }
  | {
    type: "tool_result";
    call_id: string;
    tool: string;
    ok: boolean;
    output: string;
    error?: { code: string; message: string; hint?: string };
    metadata?: Record<string, unknown>;
  }
  | CompactionPart;

/**
 * A compaction, stored as its own message (role "compaction") where it
 * happened: what the model reads from then on instead of the messages before
 * it. The messages themselves stay in the store whole; a resumed session
 * replays the compactions (toChatHistory), an export shows them as markers.
 */
export interface CompactionPart {
  type: "compaction";
  kind: "prune" | "summary";
  trigger: "threshold" | "overflow" | "manual";
  tokens_before: number;
  tokens_after: number;
  /** Tool results whose bodies were dropped, and the line the model reads instead. */
  pruned: { call_id: string; note: string }[];
  /** Summary: the handoff message that stands for every message before `kept_from`. */
  handoff?: string;
  /** Summary: the first stored message kept verbatim (none: nothing was kept). */
  kept_from?: string;
  /** Summary: how many history messages the handoff replaced. */
  replaced?: number;
  /** Why a summary was tried and not used. */
  fallback?: string;
}

export interface StoredMessage {
  role: "user" | "assistant" | "tool" | "compaction";
  parts: StoredPart[];
  /** As the store hands them out; a compaction names the messages it kept by id. */
  id?: string;
  seq?: number;
}

export const INTERRUPTED_RESULT =
  "This call was interrupted before it finished (the process stopped). Its effect is unknown: check the state before relying on it.";

/** Ends an answer that was cut off, so the model knows it stopped there. */
export const INTERRUPTED_ANSWER =
  "[This answer was interrupted here and not finished: the user stopped it, or the connection failed.]";

/**
 * The history a resumed session sends: the stored messages with every
 * compaction replayed, so it starts from the compacted state. `sources`, when
 * given, learns which stored message (by id) each history message came from.
 */
export function toChatHistory(
  messages: StoredMessage[],
  sources?: WeakMap<ChatMessage, string>,
): ChatMessage[] {
  let history: ChatMessage[] = [];
  /** The stored position each history message came from (a replayed summary cuts by it). */
  let positions: number[] = [];
  const positionOf = new Map(messages.map((message, index) => [message.id, index]));
  let at = 0;
  const push = (message: ChatMessage, id?: string) => {
    history.push(message);
    positions.push(at);
    if (id && sources) sources.set(message, id);
  };
  let pending: ToolCall[] = [];
  const flushPending = () => {
    for (const call of pending) {
      push({ role: "tool", tool_call_id: call.id, content: INTERRUPTED_RESULT });
    }
    pending = [];
  };
  for (; at < messages.length; at++) {
    const message = messages[at];
    if (message.role === "tool") {
      for (const part of message.parts) {
        if (part.type !== "tool_result") continue;
        const index = pending.findIndex((call) => call.id === part.call_id);
        if (index === -1) continue; // a result without its call cannot be sent
        pending.splice(index, 1);
        push({ role: "tool", tool_call_id: part.call_id, content: resultText(part) }, message.id);
      }
      continue;
    }
    flushPending();
    if (message.role === "compaction") {
      for (const part of message.parts) {
        if (part.type !== "compaction") continue;
        history = replayPruning(history, part);
        const kept = part.kept_from === undefined ? at : positionOf.get(part.kept_from);
        // A summary whose kept message is gone is not replayed: the loop compacts again.
        if (part.kind !== "summary" || part.handoff === undefined || kept === undefined) continue;
        const from = positions.findIndex((position) => position >= kept);
        const start = from === -1 ? history.length : from;
        const handoff: ChatMessage = { role: "user", content: part.handoff };
        history = [handoff, ...history.slice(start)];
        positions = [at, ...positions.slice(start)];
        if (message.id && sources) sources.set(handoff, message.id);
      }
      continue;
    }
    const text = message.parts.filter((part) => part.type === "text").map((part) =>
      part.interrupted ? `${part.text}${part.text ? "\n\n" : ""}${INTERRUPTED_ANSWER}` : part.text
    ).join("");
    if (message.role === "user") {
      push({ role: "user", content: text }, message.id);
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
    const reasoning = message.parts.filter((part) => part.type === "reasoning")
      .map((part) => part.text).join("");
    const providerData = message.parts.find((part) => part.type === "provider_data")?.data;
    push({
      role: "assistant",
      content: text || null,
      ...(calls.length ? { tool_calls: calls } : {}),
      ...(reasoning ? { reasoning } : {}),
      ...(providerData ? { providerData } : {}),
    }, message.id);
    pending = [...calls];
  }
  flushPending();
  return history;
}

/** The pruned results of a compaction, as the model reads them from then on. */
function replayPruning(history: ChatMessage[], part: CompactionPart): ChatMessage[] {
  if (!part.pruned.length) return history;
  const notes = new Map(part.pruned.map((entry) => [entry.call_id, entry.note]));
  return history.map((message) =>
    message.role === "tool" && notes.has(message.tool_call_id)
      ? { ...message, content: notes.get(message.tool_call_id)! }
      : message
  );
}

/** What the model reads for one tool result. */
export function resultText(part: Extract<StoredPart, { type: "tool_result" }>): string {
  if (part.ok) return part.output;
  const error = part.error;
  if (!error) return part.output;
  return `Error [${error.code}]: ${error.message}${error.hint ? `\nHint: ${error.hint}` : ""}`;
}
