/**
 * The expensive step, taken only when pruning is not enough: the model
 * writes a structured handoff of the older part of the conversation, which
 * replaces that part; the recent turns stay verbatim. The handoff is checked
 * before it is kept (not empty, shorter than what it replaces, the user's
 * own words present verbatim, added back when the model dropped them). A
 * summary that fails any of this is not used, and says why.
 */
import type { ChatMessage, ChatProvider } from "../../provider/types.ts";
import { ProviderError } from "../../provider/types.ts";
import { emptyUsage, type Usage } from "../../contracts/events.ts";
import type { ContextMeter } from "./size.ts";
import { changedFiles, changedFilesSection, missingFiles } from "./changed_files.ts";
import { fencedBlock } from "../../lib/markdown_fence.ts";

/** Assistant turns (with their tool results) kept verbatim after a summary. */
export const RECENT_TURNS_KEPT = 2;

/** Opens the message that replaces the summarised part. */
export const HANDOFF_MARK = "[Handoff summary of the earlier conversation";

export const SUMMARY_PROMPT =
  `You are writing a handoff note for a coding agent that will continue \
this work with no other memory of the conversation below. Write it as Markdown with exactly these \
sections, in this order, and nothing else:

## Task
The user's request, copied verbatim inside a quote block (every user message, in order). Do not \
paraphrase it.

## Decisions
What was decided and why, one line each.

## Files
Files read, and files changed (with what changed), one per line, with their paths.

## Commands
Commands run and their last result (exit code, pass/fail counts, the key error line).

## Verified
What has been checked and is known to work.

## Open problems
What is failing, unknown, or unfinished.

## Next steps
The concrete next actions, in order.

Be specific (paths, names, numbers); leave out pleasantries and anything already settled and \
irrelevant to the next steps. Keep it short.`;

export type SummaryOutcome =
  | {
    ok: true;
    /** The history to send from now on: system, handoff, recent turns. */
    history: ChatMessage[];
    summary: string;
    /** Messages the handoff replaced. */
    replaced: number;
    usage: Usage;
  }
  | { ok: false; reason: string; usage: Usage };

export interface SummaryDeps {
  provider: ChatProvider;
  model: string;
  meter: ContextMeter;
  /** Most tokens the summary request may hold (transcript included). */
  requestBudget: number;
  /** Most tokens the model may write. */
  maxOutputTokens: number;
  /**
   * The user's words the handoff must hold verbatim: every user message of
   * the session, including those an earlier handoff replaced.
   * @default the user messages of the part summarised
   */
  userWords?: readonly string[];
  /**
   * The files the session changed, which the handoff must name (added back
   * when the model left them out). @default those the part summarised changed
   */
  changedFiles?: readonly string[];
  /** What the user asked to keep in focus (`/compact focus`), if anything. */
  focus?: string;
  signal?: AbortSignal;
}

/** Where the verbatim recent part starts: the K-th last assistant message. */
export function recentStart(history: readonly ChatMessage[], keep = RECENT_TURNS_KEPT): number {
  let seen = 0;
  for (let index = history.length - 1; index > 0; index--) {
    if (history[index].role === "assistant" && ++seen === keep) return index;
  }
  return history.length;
}

/** The part to summarise as a plain transcript, clipped in the middle to `maxChars`. */
export function transcript(messages: readonly ChatMessage[], maxChars: number): string {
  const names = new Map<string, string>();
  const lines = messages.map((message) => {
    if (message.role === "user") return `USER:\n${message.content}`;
    if (message.role === "assistant") {
      const calls = (message.tool_calls ?? []).map((call) => {
        names.set(call.id, call.name);
        return `CALL ${call.name} ${call.arguments}`;
      });
      return ["ASSISTANT:", message.content ?? "", ...calls].filter(Boolean).join("\n");
    }
    if (message.role === "tool") {
      return `RESULT of ${names.get(message.tool_call_id) ?? "tool"}:\n${message.content}`;
    }
    return `SYSTEM:\n${message.content}`;
  });
  const text = lines.join("\n\n");
  if (text.length <= maxChars) return text;
  const half = Math.max(0, Math.floor(maxChars / 2) - 60);
  return `${text.slice(0, half)}\n\n[… ${
    text.length - 2 * half
  } characters of the middle left out …]\n\n${text.slice(-half)}`;
}

/** The user's own messages in `messages` (a handoff is not one). */
export function userWords(messages: readonly ChatMessage[]): string[] {
  return messages.flatMap((message) =>
    message.role === "user" && !message.content.startsWith(HANDOFF_MARK) && message.content.trim()
      ? [message.content.trim()]
      : []
  );
}

/**
 * Which of `words` `summary` does not hold verbatim: as they are, or as a
 * Markdown quote block (each line behind "> ", which the prompt asks for).
 */
export function missingUserWords(summary: string, words: readonly string[]): string[] {
  return words.filter((text) =>
    !summary.includes(text) && !summary.includes(`> ${text.replaceAll("\n", "\n> ")}`)
  );
}

/**
 * `words` byte for byte, in a fenced block whose fence no run of backticks
 * in them can close (a quote block would put "> " inside a multi-line message).
 */
export function verbatimBlock(words: string): string {
  return fencedBlock(words, "text");
}

/** Replaces the older part of `history` (system message kept) with a checked handoff. */
/** Below this, the older turns are not worth a model request: the handoff would be no smaller. */
export const MIN_SUMMARISED_TOKENS = 512;

/**
 * Why the older part of `history` (all but the system prompt and the recent
 * turns kept verbatim) is not worth summarising, or undefined when it is.
 * Decided without the model, so nothing is paid for a conversation that is
 * already small.
 */
export function nothingToSummarise(
  history: readonly ChatMessage[],
  meter: Pick<ContextMeter, "estimateMessage">,
): string | undefined {
  const older = history.slice(1, recentStart(history));
  if (older.length < 2) return "nothing old enough to summarise (only the recent turns)";
  const tokens = older.reduce((sum, message) => sum + meter.estimateMessage(message), 0);
  if (tokens < MIN_SUMMARISED_TOKENS) {
    return `the older turns hold only ~${tokens} tokens, and a summary would not be smaller`;
  }
  return undefined;
}

export async function summarise(
  history: readonly ChatMessage[],
  deps: SummaryDeps,
): Promise<SummaryOutcome> {
  const usage = emptyUsage();
  const idle = nothingToSummarise(history, deps.meter);
  if (idle) return { ok: false, reason: idle, usage };
  const start = recentStart(history);
  const older = history.slice(1, start);
  const olderTokens = older.reduce((sum, message) => sum + deps.meter.estimateMessage(message), 0);
  const ratio = deps.meter.charsPerToken ?? 3;
  const promptTokens = Math.ceil(SUMMARY_PROMPT.length / 2.5) + 64;
  const maxChars = Math.max(2_000, (deps.requestBudget - promptTokens) * ratio);
  const focus = deps.focus ? `\n\nKeep in focus: ${deps.focus}` : "";
  let response;
  try {
    response = await deps.provider.stream(
      {
        model: deps.model,
        messages: [
          { role: "system", content: SUMMARY_PROMPT },
          {
            role: "user",
            content: `The conversation so far:\n\n${
              transcript(older, maxChars)
            }${focus}\n\nWrite the handoff now.`,
          },
        ],
        tools: [],
        maxOutputTokens: deps.maxOutputTokens,
      },
      {},
      deps.signal,
    );
  } catch (error) {
    if (!(error instanceof ProviderError)) throw error;
    return { ok: false, reason: `the summary request failed: ${error.message}`, usage };
  }
  Object.assign(usage, response.usage);
  const written = response.text.trim();
  if (!written) return { ok: false, reason: "the model wrote an empty summary", usage };
  const missing = missingUserWords(written, deps.userWords ?? userWords(older));
  const withWords = missing.length
    ? `${written}\n\n## The user's words, verbatim\n${missing.map(verbatimBlock).join("\n\n")}`
    : written;
  const unnamed = missingFiles(written, deps.changedFiles ?? changedFiles(older));
  const summary = unnamed.length ? `${withWords}\n\n${changedFilesSection(unnamed)}` : withWords;
  const handoff: ChatMessage = {
    role: "user",
    content: `${HANDOFF_MARK} (${older.length} messages) was written to fit the context window; ` +
      `the full conversation is kept in the session store.]\n\n${summary}`,
  };
  const handoffTokens = deps.meter.estimateMessage(handoff);
  if (handoffTokens >= olderTokens) {
    return {
      ok: false,
      reason: `the summary (~${handoffTokens} tokens) is not shorter than what it replaces ` +
        `(~${olderTokens} tokens)`,
      usage,
    };
  }
  return {
    ok: true,
    history: [history[0], handoff, ...history.slice(start)],
    summary,
    replaced: older.length,
    usage,
  };
}
