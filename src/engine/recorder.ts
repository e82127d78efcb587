/**
 * The store-backed side of a session: messages and parts written as they
 * happen, every event (but the per-token deltas) appended to the log, usage
 * kept per request and summed per session. Each write commits on its own, so a killed process loses at
 * most the part in flight.
 */
import type { ProviderData, ToolCall } from "../provider/types.ts";
import type { SkiffEvent, Usage } from "../contracts/events.ts";
import type { SessionRecorder } from "./loop/loop.ts";
import type { CompactionPart, StoredPart } from "./loop/history.ts";
import type { Store } from "../store/store.ts";

export function storeRecorder(store: Store, sessionId: string): SessionRecorder {
  // Usage is kept per request under the session's model (a subagent's may differ).
  const model = store.getSession(sessionId)?.model ?? "unknown";
  return {
    userMessage(text) {
      const id = store.appendMessage(sessionId, "user");
      store.appendPart(sessionId, id, "text", { type: "text", text });
      return id;
    },
    assistantMessage(
      text: string,
      calls: ToolCall[],
      interrupted?: boolean,
      extra?: { reasoning?: string; providerData?: ProviderData },
    ) {
      const id = store.appendMessage(sessionId, "assistant");
      if (extra?.reasoning) {
        store.appendPart(sessionId, id, "reasoning", { type: "reasoning", text: extra.reasoning });
      }
      if (interrupted) {
        store.appendPart(sessionId, id, "text", { type: "text", text, interrupted: true });
      } else if (text) store.appendPart(sessionId, id, "text", { type: "text", text });
      for (const call of calls) {
        const part: StoredPart = {
          type: "tool_call",
          call_id: call.id,
          name: call.name,
          arguments: call.arguments,
        };
        store.appendPart(sessionId, id, "tool_call", part);
      }
      if (extra?.providerData) {
        const part: StoredPart = { type: "provider_data", data: extra.providerData };
        store.appendPart(sessionId, id, "provider_data", part);
      }
      return id;
    },
    toolResult(part) {
      const id = store.appendMessage(sessionId, "tool");
      store.appendPart(sessionId, id, "tool_result", part);
    },
    stepUsage(usage: Usage) {
      store.usage.record(sessionId, model, usage, 1);
    },
    summaryUsage(usage: Usage) {
      store.usage.record(sessionId, model, usage);
    },
    compaction(part) {
      recordCompaction(store, sessionId, part);
    },
  };
}

/**
 * A compaction as its own message (role "compaction", one part), after the
 * messages it covers: the store keeps them whole, and a resumed session
 * replays it (src/engine/loop/history.ts).
 */
export function recordCompaction(store: Store, sessionId: string, part: CompactionPart): void {
  const id = store.appendMessage(sessionId, "compaction");
  store.appendPart(sessionId, id, "compaction", part);
}

/**
 * Events that are stored. Deltas are not: message.completed carries the
 * whole text, and the message's reasoning part the whole reasoning.
 */
export function isStoredEvent(event: SkiffEvent): boolean {
  return event.type !== "message.delta" && event.type !== "reasoning.delta";
}
