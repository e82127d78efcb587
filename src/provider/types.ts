/**
 * What the session loop needs from a model endpoint, independent of the
 * client library underneath. Messages use the Chat Completions shape because
 * every OpenAI-compatible server speaks it.
 */
import type { Usage } from "../contracts/events.ts";
import type { ReasoningEffort } from "./dialects/reasoning_effort.ts";

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text exactly as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | AssistantMessage
  | { role: "tool"; tool_call_id: string; content: string };

export interface AssistantMessage {
  role: "assistant";
  content: string | null;
  tool_calls?: ToolCall[];
  /** What the model thought before answering, as the server streamed it. */
  reasoning?: string;
  /** What only the server that wrote this message reads back (see ProviderData). */
  providerData?: ProviderData;
}

/**
 * Fields a server put on an assistant message that only it understands,
 * kept as they came: sent back with the message to the same server (some
 * refuse the next request without them), left out for any other.
 */
export interface ProviderData {
  /** The endpoint that wrote them: its base URL, without credentials or query. */
  origin: string;
  /** The message field the reasoning came in, sent back under the same name. */
  reasoningField?: "reasoning_content" | "reasoning";
  /** Other fields of the message, e.g. OpenRouter's `reasoning_details`. */
  fields?: Record<string, unknown>;
  /** Fields of each tool call by its id, e.g. Gemini's `extra_content` (its thought signature). */
  calls?: Record<string, Record<string, unknown>>;
}

export interface ToolSchema {
  name: string;
  description: string;
  /** JSON Schema of the arguments. */
  parameters: Record<string, unknown>;
}

export interface ChatRequest {
  model: string;
  messages: ChatMessage[];
  tools: ToolSchema[];
  maxOutputTokens?: number;
  temperature?: number;
  /** How hard a reasoning model thinks (dialects/reasoning_effort.ts); absent: nothing is sent. */
  reasoningEffort?: ReasoningEffort;
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: Usage;
  /** The reasoning the server streamed beside the answer; absent when none. */
  reasoning?: string;
  /** Fields to send back with this answer to the same server; absent when none. */
  providerData?: ProviderData;
}

export interface StreamHandlers {
  /** New text. Never repeats text already delivered, even across retries. */
  onText?(delta: string): void;
  /** New reasoning text, shown apart from the answer; never repeated across retries. */
  onReasoning?(delta: string): void;
  onRetry?(info: { attempt: number; delayMs: number; reason: string }): void;
  /**
   * The model is writing a call to this tool (its name is whole; its
   * arguments have begun): work the call will need can start. A retried
   * answer may name a tool again. Whatever it throws is ignored.
   */
  onToolName?(name: string): void;
}

export interface ChatProvider {
  /** The endpoint this talks to, for error messages. */
  readonly baseURL: string;
  stream(
    request: ChatRequest,
    handlers: StreamHandlers,
    signal?: AbortSignal,
  ): Promise<ChatResponse>;
}

/** Servers' own names (`code` or `type`) for "the request is longer than the context window". */
export const OVERFLOW_ERROR_NAMES =
  /^(context_length_exceeded|context_window_exceeded|string_above_max_length|request_too_large|exceed_context_size_error)$/i;

/** The provider gave up: unreachable, or failing after every retry (exit 4). */
export class ProviderError extends Error {
  /**
   * `code`: the server's own name for the error (its `code`, else its
   * `type`), when it sent one: the message may not say what the name does.
   */
  constructor(
    message: string,
    readonly status?: number,
    readonly endpoint?: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
