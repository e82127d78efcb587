/**
 * The chat's view of stored sessions: the earlier messages shown when one is
 * resumed, and the `--resume` picker (title, age, size) of this folder's
 * sessions. Reads the store directly; the engine writes it.
 */
import type { EngineSpec } from "../../engine/types.ts";
import type { SessionSelector } from "../../engine/handle.ts";
import type { StoredMessage } from "../../engine/loop/history.ts";
import type { Session } from "../../store/store.ts";
import { withStore } from "../store_access.ts";
import type { StatusInfo } from "../../ui/chat/mod.ts";
import { neutraliseControls } from "../../ui/safe_text.ts";

/** The command that opens this session again in the chat, as the user types it. */
export function resumeHint(sessionId: string): string {
  return `skiff --resume ${sessionId}`;
}

/**
 * The reasoning of a stored session's last prompt (every assistant message
 * after its last user message), blocks apart by a blank line; "" when none.
 * What /thinking writes out in a resumed chat before the model has thought again.
 */
export function lastStoredReasoning(
  spec: Pick<EngineSpec, "dataDir">,
  sessionId: string,
): string {
  const messages = withStore(
    (store) => store.loadHistory(sessionId),
    spec.dataDir,
  ) as StoredMessage[];
  const lastUser = messages.findLastIndex((message) => message.role === "user");
  return messages.slice(lastUser + 1).flatMap((message) =>
    message.role === "assistant"
      ? message.parts.flatMap((part) => part.type === "reasoning" ? [part.text.trim()] : [])
      : []
  ).filter(Boolean).join("\n\n");
}

/**
 * The status line of a resumed session as the last run left it, shown at
 * once rather than after the next request: its own tokens and cost (the
 * store's usage rows; subagents' are theirs, as in a live chat) and how full
 * its context was, by the same events a live chat reads (the last request's
 * input, or the size after a later compaction).
 */
export function resumedStatus(
  spec: Pick<EngineSpec, "dataDir">,
  sessionId: string,
): Pick<StatusInfo, "contextTokens" | "totalTokens" | "costUsd"> {
  return withStore((store) => {
    const totals = store.usage.ownTotals(sessionId);
    let contextTokens = 0;
    for (const event of store.listEvents(sessionId)) {
      if (event.type === "turn.completed" && event.usage.input_tokens > 0) {
        contextTokens = event.usage.input_tokens;
      } else if (event.type === "context.compacted") contextTokens = event.tokens_after;
    }
    const priced = totals.requests - totals.unpriced_requests > 0;
    return {
      contextTokens,
      totalTokens: totals.input_tokens + totals.output_tokens,
      costUsd: priced ? totals.cost_usd : undefined,
    };
  }, spec.dataDir);
}

/** This folder's conversations, newest first, at most `limit` (`skiff tool` batches are not). */
export function folderSessions(
  spec: Pick<EngineSpec, "dataDir" | "workspace">,
  limit: number,
): Session[] {
  return withStore(
    (store) => store.listSessions({ workspace: spec.workspace, limit: 200 }),
    spec.dataDir,
  ).filter((session) => session.agent !== "tool").slice(0, limit);
}

function age(ms: number, now = Date.now()): string {
  const minutes = Math.round((now - ms) / 60_000);
  if (minutes < 60) return `${minutes}m ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours}h ago` : `${Math.round(hours / 24)}d ago`;
}

/** Lines of the picker: number, title, age, size. */
export function pickerLines(
  sessions: { title: string; updated_at: number; total_tokens: number; turns: number }[],
  now = Date.now(),
): string[] {
  return sessions.map((session, index) =>
    `${String(index + 1).padStart(2)}. ${(session.title || "(untitled)").slice(0, 50).padEnd(50)} ${
      age(session.updated_at, now).padStart(8)
    }  ${session.turns} turn${session.turns === 1 ? "" : "s"}, ${session.total_tokens} tokens`
  );
}

/**
 * Asks which of this folder's sessions to resume: `{ sessionId }` for the one
 * picked, `{}` for a new session when there is none yet, undefined when the
 * person ended the question (Ctrl-D). A number not on the list is asked again.
 */
export function pickSession(
  spec: Pick<EngineSpec, "dataDir" | "workspace">,
  ask: (question: string) => string | null = prompt,
): SessionSelector | undefined {
  const sessions = folderSessions(spec, 20);
  if (!sessions.length) {
    console.log(neutraliseControls(`No earlier session in ${spec.workspace}; starting a new one.`));
    return {};
  }
  console.log(neutraliseControls(pickerLines(sessions).join("\n")));
  for (;;) {
    const answer = ask(`Resume which (1-${sessions.length}, Enter for 1)?`);
    if (answer === null) return undefined;
    const number = answer.trim() ? Number(answer.trim()) : 1;
    const picked = Number.isInteger(number) ? sessions[number - 1] : undefined;
    if (picked) return { sessionId: picked.id };
    console.log(
      neutraliseControls(`No session number ${answer.trim()}: type 1 to ${sessions.length}.`),
    );
  }
}
