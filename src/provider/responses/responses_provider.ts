/**
 * The ChatProvider for the Responses API (`POST /responses`): the same
 * client as Chat Completions (openai_provider.ts: retries, timeouts, the
 * text guard, usage and cost), given a fetch that speaks this protocol
 * (responses_fetch.ts) and the bodies of this protocol, each message
 * written once (responses_request.ts). What only this protocol has is kept here: the
 * encrypted reasoning items of each answer, sent back with the calls they
 * led to. They come back on the answer as its `providerData` (for the
 * session to store and send again, even after a restart), under an origin
 * of this protocol's own so a Chat Completions request to the same server
 * never carries them, and are remembered by call id for as long as the
 * provider lives.
 */
import { createOpenAIProvider, type OpenAIProviderOptions } from "../openai_provider.ts";
import type { ChatProvider, ChatResponse, ProviderData } from "../types.ts";
import { type ReasoningItem, ResponsesRequestWriter } from "./responses_request.ts";
import { responsesFetch } from "./responses_fetch.ts";
import type { ResponsesTranslator } from "./responses_stream.ts";
import { originOf } from "../dialects/dialect.ts";
import { RefusedFields } from "../refused_fields.ts";

/** What this protocol keeps in `ProviderData.fields`. */
export interface ResponsesData {
  reasoning: ReasoningItem[];
}

/** The origin this protocol's data is filed under: the endpoint's, marked as the Responses API's. */
export function responsesOrigin(baseURL: string): string {
  return `${originOf(baseURL)}#responses`;
}

/**
 * Create a provider speaking the Responses API at `options.baseURL`
 * (`…/v1/responses`). Needs --allow-net for the endpoint's host.
 */
export function createResponsesProvider(options: OpenAIProviderOptions): ChatProvider {
  const baseURL = options.baseURL.replace(/\/+$/, "");
  // Call id → the reasoning items of the answer that made the call.
  const kept = new Map<string, ReasoningItem[]>();
  const origin = responsesOrigin(baseURL);
  // What the server refused, for the provider's life: each request's client reads it too.
  const refused = options.refusedFields ?? new RefusedFields();
  // One writer for the provider's life: each message is written once, whichever request sends it.
  const bodies = new ResponsesRequestWriter({
    reasoningFor: (message, callId) =>
      responsesDataOf(message.providerData, origin)?.reasoning ?? kept.get(callId),
    refused,
  });

  return {
    baseURL,
    async stream(request, handlers, signal): Promise<ChatResponse> {
      let answered: ResponsesTranslator | undefined;
      // One client per request: the fetch it is given reports this request's attempts.
      const client = createOpenAIProvider({
        ...options,
        // Usage comes with the end event; `stream_options` is no field of this API.
        streamUsage: false,
        bodyWriter: bodies,
        refusedFields: refused,
        fetch: responsesFetch({
          fetch: options.fetch,
          without: (body, field) => bodies.without(body, field),
          onAttempt: (translator) => answered = translator,
          onRefused: (field, said) => {
            if (field !== "reasoning_effort") return; // asked for by skiff, not the user
            handlers.onRetry?.({
              attempt: 1,
              delayMs: 0,
              reason:
                `${baseURL}/responses refused reasoning effort "${request.reasoningEffort}" ` +
                `for ${request.model} (${said}): asking again without it; set ` +
                `another "reasoningEffort" for this model in the provider config, or none`,
            });
          },
        }),
      });
      const response = await client.stream(request, handlers, signal);
      const capture = answered?.capture ?? { reasoning: "", items: [] };
      for (const call of response.toolCalls) kept.set(call.id, capture.items);
      // The inner client's providerData names the Chat Completions origin: this answer's is ours alone.
      const { providerData: _chat, ...answer } = response;
      return {
        ...answer,
        ...(capture.reasoning ? { reasoning: capture.reasoning } : {}),
        ...(capture.items.length
          ? {
            providerData: {
              origin,
              fields: { reasoning: capture.items } satisfies ResponsesData,
            },
          }
          : {}),
      };
    },
  };
}

/** This protocol's data on a message, when this endpoint's Responses API wrote it. */
function responsesDataOf(
  data: ProviderData | undefined,
  origin: string,
): ResponsesData | undefined {
  if (data?.origin !== origin) return undefined;
  const value = data.fields as Partial<ResponsesData> | undefined;
  return Array.isArray(value?.reasoning) ? value as ResponsesData : undefined;
}
