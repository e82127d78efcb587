/**
 * A resumed chat shows its earlier prompts as they looked live: the stored
 * events (answers, tool lines, refusals, warnings, compactions) go through
 * the same renderer again, and what the person typed is put back between
 * them. Deltas are not stored, so each answer comes whole from its
 * `message.completed`, and each turn's reasoning from its stored message.
 * Notes skiff adds to a prompt for the model (a `!command`'s output, an
 * undo) are stored inside the prompt's text, marked, so the replay can leave
 * them out of what the person said.
 */
import type { EventOf, SkiffEvent } from "../../contracts/events.ts";
import type { EngineSpec } from "../../engine/types.ts";
import type { StoredPart } from "../../engine/loop/history.ts";
import { withStore } from "../store_access.ts";

/** One step of a replay: a prompt as typed, or an event for the renderer. */
export type ReplayItem = { kind: "prompt"; text: string } | { kind: "event"; event: SkiffEvent };

const NOTE_OPEN = "<skiff-note>";
const NOTE_CLOSE = "</skiff-note>";

/** The text sent to the model: skiff's notes first, each marked, then what the person typed. */
export function withNotes(notes: string[], prompt: string): string {
  if (!notes.length) return prompt;
  return [...notes.map((note) => `${NOTE_OPEN}\n${note}\n${NOTE_CLOSE}`), prompt].join("\n\n");
}

/** What the person typed, out of a stored prompt: no notes before it, no attached files after. */
export function typedText(stored: string): string {
  let text = stored;
  while (text.startsWith(NOTE_OPEN)) {
    const end = text.indexOf(NOTE_CLOSE);
    if (end < 0) break;
    text = text.slice(end + NOTE_CLOSE.length).replace(/^\s+/, "");
  }
  return text.split("\n\n<file ")[0].trim();
}

interface StoredRow {
  role: string;
  created_at: number;
  parts: StoredPart[];
}

/**
 * The replay of a stored session's last `keepPrompts` prompts, in the order
 * they happened; empty when it has none. A prompt is placed before the first
 * event stored after it; the k-th turn of the session gets the reasoning of
 * its k-th stored answer.
 */
export function replayItems(
  spec: Pick<EngineSpec, "dataDir">,
  sessionId: string,
  keepPrompts = 20,
): ReplayItem[] {
  const { messages, events } = withStore((store) => ({
    messages: store.loadHistory(sessionId) as unknown as StoredRow[],
    events: store.listEvents(sessionId),
  }), spec.dataDir);
  const textOf = (parts: StoredPart[], type: "text" | "reasoning") =>
    parts.flatMap((part) => part.type === type ? [part.text] : []).join("").trim();
  const prompts = messages.filter((message) => message.role === "user")
    .map((message) => ({ at: message.created_at, text: typedText(textOf(message.parts, "text")) }))
    .filter((prompt) => prompt.text);
  const reasoning = messages.filter((message) => message.role === "assistant")
    .map((message) => textOf(message.parts, "reasoning"));
  const items: ReplayItem[] = [];
  let nextPrompt = 0;
  let turns = 0;
  for (const event of events) {
    const at = Date.parse(event.timestamp);
    while (nextPrompt < prompts.length && prompts[nextPrompt].at <= at) {
      items.push({ kind: "prompt", text: prompts[nextPrompt++].text });
    }
    if (event.type === "permission.asked") continue;
    if (event.type === "message.completed") {
      items.push({ kind: "event", event: { ...event, type: "message.delta" } });
    }
    items.push({ kind: "event", event });
    if (event.type === "turn.started") {
      const thought = reasoning[turns++];
      if (thought) {
        items.push({ kind: "event", event: { ...event, type: "reasoning.delta", text: thought } });
      }
    }
  }
  for (const prompt of prompts.slice(nextPrompt)) items.push({ kind: "prompt", text: prompt.text });
  if (!items.length) return [];
  // A run that was killed never completed: the replay still ends as a finished one.
  if (events.at(-1)?.type !== "session.completed") items.push(settled(sessionId));
  const promptIndexes = items.flatMap((item, index) => item.kind === "prompt" ? [index] : []);
  const from = promptIndexes.length > keepPrompts ? promptIndexes.at(-keepPrompts)! : 0;
  return items.slice(from);
}

/** A `session.completed` that ends whatever the replay left running; it carries nothing else. */
function settled(sessionId: string): ReplayItem {
  const event: EventOf<"session.completed"> = {
    type: "session.completed",
    session_id: sessionId,
    timestamp: new Date().toISOString(),
    text: "",
    usage: { input_tokens: 0, output_tokens: 0, total_tokens: 0 },
    turns: 0,
    exit_code: 0,
    denials: [],
  };
  return { kind: "event", event };
}
