/**
 * Recognises an endpoint's "the request is longer than my context window"
 * among its errors. Our count and the server's can differ (another
 * tokenizer, a smaller window than configured), so such an answer is not a
 * failure of the run but a request to compact and try again. The texts are
 * those of OpenAI, vLLM, llama.cpp, Ollama, OpenRouter and Anthropic- or
 * Mistral-style servers, matched in the ProviderError's message, which
 * carries the server's own words, or the error's own name when the server
 * gave one (a generic message with `code: "context_length_exceeded"`).
 */
import { OVERFLOW_ERROR_NAMES, ProviderError } from "../../provider/types.ts";

const OVERFLOW_TEXTS: RegExp[] = [
  /context[_ ]length[_ ]exceeded/i, // OpenAI's code, echoed by many proxies
  /maximum context length is \d+/i, // OpenAI, vLLM, OpenRouter
  /exceeds? (the )?(available |maximum |model's )?context (size|length|window)/i, // llama.cpp, Ollama
  /exceed_context_size_error/i, // llama.cpp's error type
  /(input|prompt) is (too long|too large|larger than the (max|maximum) context)/i,
  /(input|prompt) (length|tokens?) (exceeds|is longer than)/i,
  /too large for model with \d+ maximum context length/i, // Mistral
  /reduce the length of the (messages|prompt|input)/i,
  /context window (is )?(exceeded|full)/i,
];

/** Statuses a context overflow comes with; undefined is an error inside a 200 stream. */
const OVERFLOW_STATUSES = new Set([400, 413, 422, 500]);

export function isContextOverflow(error: unknown): error is ProviderError {
  if (!(error instanceof ProviderError)) return false;
  if (error.status !== undefined && !OVERFLOW_STATUSES.has(error.status)) return false;
  if (error.code !== undefined && OVERFLOW_ERROR_NAMES.test(error.code)) return true;
  return OVERFLOW_TEXTS.some((pattern) => pattern.test(error.message));
}

/** The window the server names in its refusal, when it names one. */
export function windowFromOverflow(message: string): number | undefined {
  const patterns = [
    /maximum context length is (\d+)/i,
    /context size \((\d+) tokens?\)/i,
    /with (\d+) maximum context length/i,
    /context (?:length|size|window) (?:of|is) (\d+)/i,
  ];
  for (const pattern of patterns) {
    const found = message.match(pattern)?.[1];
    if (found && Number(found) > 0) return Number(found);
  }
  return undefined;
}

/** The size the server counted for the refused request, when it says. */
export function tokensFromOverflow(message: string): number | undefined {
  const patterns = [
    /resulted in (\d+) tokens/i, // OpenAI, OpenRouter
    /you requested (?:about )?(\d+) tokens/i, // vLLM, OpenRouter
    /request \((\d+) tokens?\)/i, // llama.cpp
    /prompt contains (\d+) tokens/i, // Mistral
    /prompt is too long: (\d+) tokens/i, // Anthropic-style
  ];
  for (const pattern of patterns) {
    const found = message.match(pattern)?.[1];
    if (found && Number(found) > 0) return Number(found);
  }
  return undefined;
}
