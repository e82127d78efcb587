/**
 * What the session loop needs from a model endpoint, independent of the
 * client library underneath. Messages use the Chat Completions shape because
 * every OpenAI-compatible server speaks it.
 */
import type { Usage } from "../contracts/events.ts";

export interface ToolCall {
  id: string;
  name: string;
  /** Raw JSON text exactly as the model produced it. */
  arguments: string;
}

export type ChatMessage =
  | { role: "system"; content: string }
  | { role: "user"; content: string }
  | {
    role: "assistant";
    content: string | null;
    tool_calls?: ToolCall[];
    /** What the provider that wrote this answer needs back (ProviderData); never sent to another. */
    providerData?: ProviderData;
  }
  | { role: "tool"; tool_call_id: string; content: string };

/**
 * Opaque data a wire protocol keeps with an answer and needs in later
 * requests, keyed by that protocol ("responses": the encrypted reasoning
 * items the Responses API wants passed back). Others ignore it.
 */
export type ProviderData = Record<string, unknown>;

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
}

export interface ChatResponse {
  text: string;
  toolCalls: ToolCall[];
  finishReason: string | null;
  usage: Usage;
  /** What the model showed of its reasoning (a summary, or the text itself), when it streamed any. */
  reasoning?: string;
  /** See `ProviderData`: kept on the assistant message and sent back to the same provider. */
  providerData?: ProviderData;
}

export interface StreamHandlers {
  /** New text. Never repeats text already delivered, even across retries. */
  onText?(delta: string): void;
  /** New reasoning text (a summary or the model's own), apart from the answer. */
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

/** The provider gave up: unreachable, or failing after every retry (exit 4). */
export class ProviderError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly endpoint?: string,
  ) {
    super(message);
    this.name = "ProviderError";
  }
}
