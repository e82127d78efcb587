/**
 * How many tokens a request will take, known before it is sent. The part of
 * the history the endpoint has already counted is taken from its own usage
 * report (`input_tokens` of the last answer); only what was added since is
 * estimated. The estimate divides characters by a chars-per-token ratio:
 * the ratio observed in this session when the endpoint reports usage, a
 * conservative default otherwise (3.5 for prose, 2.5 for JSON and code,
 * which tokenise denser). No tokenizer package is used: skiff talks to many
 * model families whose tokenizers differ, and the endpoint's count corrects
 * the estimate at every turn.
 */
import type { ChatMessage, ToolSchema } from "../../provider/types.ts";

/** Characters per token assumed for prose when the session has not been measured yet. */
export const PROSE_CHARS_PER_TOKEN = 3.5;
/** Characters per token assumed for JSON, code and logs (more symbols, shorter tokens). */
export const CODE_CHARS_PER_TOKEN = 2.5;
/** Framing the endpoint adds around each message (role, separators). */
const MESSAGE_OVERHEAD_TOKENS = 4;
/** An observed ratio outside this range is a broken usage report, not a tokenizer. */
const MIN_RATIO = 1.5;
const MAX_RATIO = 6;

const SYMBOLS = /[{}[\]()<>;:=",\\/_|`$#*]/g;

/** The characters of a message the model reads. */
export function messageChars(message: ChatMessage): number {
  let chars = message.content?.length ?? 0;
  if (message.role === "assistant") {
    for (const call of message.tool_calls ?? []) chars += call.name.length + call.arguments.length;
  }
  return chars;
}

function messageText(message: ChatMessage): string {
  const calls = message.role === "assistant"
    ? (message.tool_calls ?? []).map((call) => call.arguments).join("")
    : "";
  return (message.content ?? "") + calls;
}

/** The default ratio for a text: dense in symbols reads as code. */
export function defaultCharsPerToken(text: string): number {
  if (text.length === 0) return PROSE_CHARS_PER_TOKEN;
  const sample = text.length > 4000 ? text.slice(0, 2000) + text.slice(-2000) : text;
  const symbols = sample.match(SYMBOLS)?.length ?? 0;
  return symbols / sample.length >= 0.08 ? CODE_CHARS_PER_TOKEN : PROSE_CHARS_PER_TOKEN;
}

/**
 * Keeps the endpoint's last count and the session's observed ratio, and
 * estimates a request from them. `invalidate()` after the history was
 * rewritten (a compaction): the count then no longer describes its prefix.
 */
export class ContextMeter {
  /** Messages the endpoint counted, and its count (tools included). */
  #counted: { messages: number; tokens: number } | undefined;
  /** Characters per token observed in this session, when measured. */
  #ratio: number | undefined;
  #toolChars = 0;

  constructor(schemas: ToolSchema[] = []) {
    this.#toolChars = schemas.length ? JSON.stringify(schemas).length : 0;
  }

  /** The observed ratio, when the endpoint reported usage. */
  get charsPerToken(): number | undefined {
    return this.#ratio;
  }

  /** The endpoint counted `promptTokens` for the request made of `sent`. */
  observe(sent: readonly ChatMessage[], promptTokens: number): void {
    if (!(promptTokens > 0)) return;
    const chars = sent.reduce((sum, message) => sum + messageChars(message), 0) + this.#toolChars;
    const overhead = sent.length * MESSAGE_OVERHEAD_TOKENS;
    const ratio = chars / Math.max(1, promptTokens - overhead);
    if (ratio >= MIN_RATIO && ratio <= MAX_RATIO) this.#ratio = ratio;
    this.#counted = { messages: sent.length, tokens: promptTokens };
  }

  /** The history was rewritten: the last count no longer applies (the ratio still does). */
  invalidate(): void {
    this.#counted = undefined;
  }

  /** The endpoint answered that our count was too low: trust our estimates less from now on. */
  distrust(factor = 0.75): void {
    this.#ratio = Math.max(MIN_RATIO, (this.#ratio ?? CODE_CHARS_PER_TOKEN) * factor);
    this.#counted = undefined;
  }

  /** Estimated tokens of one message. */
  estimateMessage(message: ChatMessage): number {
    const chars = messageChars(message);
    const ratio = this.#ratio ?? defaultCharsPerToken(messageText(message));
    return Math.ceil(chars / ratio) + MESSAGE_OVERHEAD_TOKENS;
  }

  /** Estimated tokens of a request: counted prefix + estimate of the rest. */
  estimate(history: readonly ChatMessage[]): number {
    const counted = this.#counted && this.#counted.messages <= history.length
      ? this.#counted
      : undefined;
    let tokens = counted
      ? counted.tokens
      : Math.ceil(this.#toolChars / (this.#ratio ?? CODE_CHARS_PER_TOKEN));
    for (let index = counted?.messages ?? 0; index < history.length; index++) {
      tokens += this.estimateMessage(history[index]);
    }
    return tokens;
  }
}
