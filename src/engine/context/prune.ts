/**
 * The cheap step: old tool outputs the conversation has moved past lose
 * their bodies. The call stays as the model made it; its result becomes one
 * line saying what it returned (size, first line) and where the whole output
 * can be read again: the spill file when the output was long enough to be
 * spilled, otherwise an honest "not kept". Oldest first, so the newest
 * outputs are kept longest.
 */
import type { ChatMessage } from "../../provider/types.ts";
import type { ContextMeter } from "./size.ts";

/** Every pruned result starts with this, so it is never pruned twice. */
export const PRUNED_MARK = "[output pruned to save context";

/** The notice `tools/truncate.ts` writes into a truncated output, naming its spill file. */
const SPILL_NOTICE = /\[\d+ characters truncated; full output: (.+?)\] …/;

/** A pruned result shorter than this is not worth a note. */
const MIN_PRUNABLE_CHARS = 400;
const FIRST_LINE_CHARS = 120;

export interface PruneOptions {
  /** Stop once the estimate is at or below this. */
  goal: number;
  /**
   * Also prune results the model has not answered yet (after the last
   * assistant message). Only a last resort: those are what it is working on.
   */
  includeUnread?: boolean;
}

export interface PruneResult {
  pruned: number;
  /** Each pruned result's call and the line that replaced it (what a resumed session replays). */
  notes: { call_id: string; note: string }[];
  tokensBefore: number;
  tokensAfter: number;
}

/** The one line a pruned output becomes. */
export function prunedNote(tool: string, output: string): string {
  const firstLine = output.trimStart().split("\n", 1)[0].slice(0, FIRST_LINE_CHARS);
  const spill = output.match(SPILL_NOTICE)?.[1];
  const where = spill
    ? `full output: ${spill} (read it again if you need it)`
    : "the full output was not kept where you can read it; run the call again if you need it";
  return `${PRUNED_MARK}: ${tool} returned ${output.length} characters, ` +
    `first line: ${JSON.stringify(firstLine)}; ${where}]`;
}

function toolNames(history: readonly ChatMessage[]): Map<string, string> {
  const names = new Map<string, string>();
  for (const message of history) {
    if (message.role !== "assistant") continue;
    for (const call of message.tool_calls ?? []) names.set(call.id, call.name);
  }
  return names;
}

/** Prunes `history` in place, oldest result first, until it fits `goal`. */
export function pruneToolOutputs(
  history: ChatMessage[],
  meter: ContextMeter,
  options: PruneOptions,
): PruneResult {
  meter.invalidate();
  const tokensBefore = meter.estimate(history);
  let tokens = tokensBefore;
  const notes: { call_id: string; note: string }[] = [];
  let lastAssistant = history.length;
  if (!options.includeUnread) {
    while (lastAssistant > 0 && history[lastAssistant - 1].role !== "assistant") lastAssistant--;
    lastAssistant--;
  }
  const names = toolNames(history);
  for (let index = 0; index < history.length && tokens > options.goal; index++) {
    if (!options.includeUnread && index >= lastAssistant) break;
    const message = history[index];
    if (message.role !== "tool") continue;
    if (message.content.length < MIN_PRUNABLE_CHARS || message.content.startsWith(PRUNED_MARK)) {
      continue;
    }
    const note = prunedNote(names.get(message.tool_call_id) ?? "the tool", message.content);
    const replacement: ChatMessage = { ...message, content: note };
    tokens += meter.estimateMessage(replacement) - meter.estimateMessage(message);
    history[index] = replacement;
    notes.push({ call_id: message.tool_call_id, note });
  }
  return { pruned: notes.length, notes, tokensBefore, tokensAfter: tokens };
}
