/**
 * The store-backed side of a session: messages and parts written as they
 * happen, every event (but the per-token deltas) appended to the log, usage
 * summed per step. Each write commits on its own, so a killed process loses at
 * most the part in flight.
 */
import type { ToolCall } from "../provider/types.ts";
import type { SkiffEvent, Usage } from "../contracts/events.ts";
import type { SessionRecorder } from "../session/loop.ts";
import type { StoredPart } from "../session/history.ts";
import type { Store } from "../store/store.ts";

export function storeRecorder(store: Store, sessionId: string): SessionRecorder {
  return {
    userMessage(text) {
      const id = store.appendMessage(sessionId, "user");
      store.appendPart(sessionId, id, "text", { type: "text", text });
    },
    assistantMessage(text: string, calls: ToolCall[], interrupted?: boolean) {
      const id = store.appendMessage(sessionId, "assistant");
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
    },
    toolResult(part) {
      const id = store.appendMessage(sessionId, "tool");
      store.appendPart(sessionId, id, "tool_result", part);
    },
    stepUsage(usage: Usage) {
      store.addUsage(sessionId, usage, 1);
    },
  };
}

/** Events that are stored. Deltas are not: message.completed carries the whole text. */
export function isStoredEvent(event: SkiffEvent): boolean {
  return event.type !== "message.delta";
}
