/**
 * The ChatProvider for the Responses API (`POST /responses`): the same
 * client as Chat Completions (openai_provider.ts: retries, timeouts, the
 * text guard, usage and cost), given a fetch that speaks this protocol
 * (responses_fetch.ts). What only this protocol has is kept here: the
 * encrypted reasoning items of each answer, sent back with the calls they
 * led to. They come back on the answer as `providerData.responses` (for the
 * session to store and send again, even after a restart) and are remembered
 * by call id for as long as the provider lives.
 */
import { createOpenAIProvider, type OpenAIProviderOptions } from "../openai_provider.ts";
import type { ChatMessage, ChatProvider, ChatResponse, ProviderData } from "../types.ts";
import type { ReasoningItem } from "./responses_request.ts";
import { responsesFetch } from "./responses_fetch.ts";
import type { ResponsesTranslator } from "./responses_stream.ts";

/** What this protocol keeps in `ProviderData`, under the key "responses". */
export interface ResponsesData {
  reasoning: ReasoningItem[];
}

/**
 * Create a provider speaking the Responses API at `options.baseURL`
 * (`…/v1/responses`). Needs --allow-net for the endpoint's host.
 */
export function createResponsesProvider(options: OpenAIProviderOptions): ChatProvider {
  const baseURL = options.baseURL.replace(/\/+$/, "");
  // Call id → the reasoning items of the answer that made the call.
  const kept = new Map<string, ReasoningItem[]>();
  const state = { refused: new Set<string>() };

  return {
    baseURL,
    async stream(request, handlers, signal): Promise<ChatResponse> {
      const carried = carriedReasoning(request.messages);
      let answered: ResponsesTranslator | undefined;
      // One client per request: the fetch it is given knows this request's reasoning and handlers.
      const client = createOpenAIProvider({
        ...options,
        // Usage comes with the end event; `stream_options` is no field of this API.
        streamUsage: false,
        fetch: responsesFetch({
          fetch: options.fetch,
          reasoningFor: (id) => carried.get(id) ?? kept.get(id),
          onReasoning: handlers.onReasoning && ((delta) => {
            try {
              handlers.onReasoning?.(delta);
            } catch {
              // Showing the reasoning is not the answer: a failure there must not fail it.
            }
          }),
          onAttempt: (translator) => answered = translator,
          state,
        }),
      });
      const response = await client.stream(request, handlers, signal);
      const capture = answered?.capture ?? { reasoning: "", items: [] };
      for (const call of response.toolCalls) kept.set(call.id, capture.items);
      return {
        ...response,
        ...(capture.reasoning ? { reasoning: capture.reasoning } : {}),
        ...(capture.items.length
          ? { providerData: { responses: { reasoning: capture.items } satisfies ResponsesData } }
          : {}),
      };
    },
  };
}

/** The reasoning items the history carries on its assistant messages, by call id. */
function carriedReasoning(messages: readonly ChatMessage[]): Map<string, ReasoningItem[]> {
  const found = new Map<string, ReasoningItem[]>();
  for (const message of messages) {
    if (message.role !== "assistant" || !message.tool_calls?.length) continue;
    const items = responsesDataOf(message.providerData)?.reasoning;
    if (!items?.length) continue;
    for (const call of message.tool_calls) found.set(call.id, items);
  }
  return found;
}

function responsesDataOf(data: ProviderData | undefined): ResponsesData | undefined {
  const value = data?.responses as Partial<ResponsesData> | undefined;
  return Array.isArray(value?.reasoning) ? value as ResponsesData : undefined;
}
