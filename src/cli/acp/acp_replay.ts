/**
 * A stored session's history as the `session/update`s that would have shown
 * it live: what the user typed, the answers and the reasoning, each tool
 * call with its result. An editor that loads a session (`session/load`)
 * draws the conversation from these before it answers.
 */
import type * as acp from "@agentclientprotocol/sdk";
import type { StoredMessage } from "../../engine/loop/history.ts";
import { endedCall, startedCall, textChunk } from "./acp_updates.ts";

/** Everything the history shows, in order; compactions and provider data are left out. */
export function replayUpdates(
  messages: readonly StoredMessage[],
  workspace: string,
): acp.SessionUpdate[] {
  const updates: acp.SessionUpdate[] = [];
  const inputs = new Map<string, unknown>();
  for (const message of messages) {
    for (const part of message.parts) {
      if (part.type === "text" && part.text.trim()) {
        const kind = message.role === "user" ? "user_message_chunk" : "agent_message_chunk";
        if (message.role === "user" || message.role === "assistant") {
          updates.push(textChunk(kind, part.text));
        }
      } else if (part.type === "reasoning" && part.text.trim()) {
        updates.push(textChunk("agent_thought_chunk", part.text));
      } else if (part.type === "tool_call") {
        const input = parsedArguments(part.arguments);
        inputs.set(part.call_id, input);
        updates.push(startedCall(part.call_id, part.name, input, workspace));
      } else if (part.type === "tool_result") {
        const diff = part.metadata?.diff;
        updates.push(endedCall(
          {
            callId: part.call_id,
            tool: part.tool,
            ok: part.ok,
            output: part.ok ? part.output : part.error?.message ?? part.output,
            diff: typeof diff === "string" ? diff : undefined,
          },
          inputs.get(part.call_id),
          workspace,
        ));
      }
    }
  }
  return updates;
}

/** A call's stored arguments; the raw text when the model wrote no JSON. */
function parsedArguments(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}
