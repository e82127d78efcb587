/**
 * The session's model client as the config describes it: which wire protocol
 * each model is spoken to in (Chat Completions or the Responses API), and how
 * the key is sent (a bearer token, or Azure OpenAI's `api-key` header). A
 * model whose protocol is not set is asked over Chat Completions first; when
 * the server answers that it serves the model only on `/responses` (OpenAI's
 * 404 for its codex and pro models, or any 404 there that `/responses`
 * does not repeat), the client switches to the Responses API for that model,
 * says so once, and stays there.
 */
import { authStyle } from "./auth_headers.ts";
import { modelEntry } from "./dialects/model_settings.ts";
import { createOpenAIProvider, type OpenAIProviderOptions } from "./openai_provider.ts";
import { createResponsesProvider } from "./responses/responses_provider.ts";
import { type ChatProvider, ProviderError } from "./types.ts";
import { RefusedFields } from "./refused_fields.ts";

export type Wire = "chat" | "responses";

export interface ProviderOptions extends OpenAIProviderOptions {
  /** "auto": Chat Completions, switching on the server's refusal. @default "auto" */
  wire?: Wire | "auto";
  /** The protocol of particular models, by id or pattern (`*` matches any text). */
  modelWires?: Record<string, Wire>;
  /**
   * How the key is sent: `Authorization: Bearer <key>`, or Azure OpenAI's
   * `api-key: <key>`. @default "api-key" for an Azure
   * host (*.openai.azure.com, *.cognitiveservices.azure.com), else "bearer"
   */
  auth?: "bearer" | "api-key";
  /** Azure OpenAI's `api-version` query parameter, added to every request. */
  apiVersion?: string;
}

/** Create the client `options` describe. Needs --allow-net for the endpoint's host. */
export function createProvider(options: ProviderOptions): ChatProvider {
  // One memory of refused fields for both protocols: what a server said of a model holds on either.
  const client = {
    ...options,
    ...withAuth(options),
    refusedFields: options.refusedFields ?? new RefusedFields(),
  };
  let chat: ChatProvider | undefined;
  let responses: ChatProvider | undefined;
  const chatClient = () => chat ??= createOpenAIProvider(client);
  const responsesClient = () => responses ??= createResponsesProvider(client);
  const switched = new Set<string>();
  const baseURL = chatClient().baseURL;

  function chosenWire(model: string): Wire | undefined {
    const configured = modelEntry(model, options.modelWires) ??
      (options.wire && options.wire !== "auto" ? options.wire : undefined);
    if (configured) return configured;
    if (switched.has(model)) return "responses";
    return servedOnlyOnResponses(baseURL, model) ? "responses" : undefined;
  }

  return {
    baseURL,
    async stream(request, handlers, signal) {
      const wire = chosenWire(request.model);
      if (wire === "responses") return responsesClient().stream(request, handlers, signal);
      if (wire === "chat") return chatClient().stream(request, handlers, signal);
      try {
        return await chatClient().stream(request, handlers, signal);
      } catch (error) {
        if (!(error instanceof ProviderError) || !refusedForResponses(error)) throw error;
        handlers.onRetry?.({
          attempt: 1,
          delayMs: 0,
          reason:
            `${baseURL}/chat/completions does not serve ${request.model} (${error.status}): ` +
            `asking the Responses API (${baseURL}/responses) instead; set "wire": "responses" ` +
            `for it in the provider config to go there at once`,
        });
        let answer;
        try {
          answer = await responsesClient().stream(request, handlers, signal);
        } catch (second) {
          // Not served there either: the first refusal explains more (a wrong base URL, a wrong model).
          if (second instanceof ProviderError && second.status === 404) throw error;
          throw second;
        }
        switched.add(request.model);
        return answer;
      }
    },
  };
}

/**
 * A refusal of a Chat Completions request that the Responses API may accept:
 * OpenAI's "This model is only supported in v1/responses and not in
 * v1/chat/completions" (a 404), a proxy's "use /v1/responses", or a bare 404.
 */
export function refusedForResponses(error: ProviderError): boolean {
  if (error.status === 404) return true;
  return (error.status === 400 || error.status === 422) &&
    /v1\/responses|responses api/i.test(error.message) &&
    /only|not supported|unsupported|use/i.test(error.message);
}

/**
 * OpenAI models offered only on `/responses` (its codex models, the pro and
 * deep-research ones), at OpenAI itself: other hosts serve the same names
 * over Chat Completions.
 */
function servedOnlyOnResponses(baseURL: string, model: string): boolean {
  const host = URL.parse(baseURL)?.hostname ?? "";
  if (host !== "api.openai.com") return false;
  return /codex|^o\d-pro|^gpt-5(\.\d+)?-pro|deep-research|computer-use/i.test(model);
}

/**
 * The base URL and headers that carry the key as `options.auth` says, and
 * the `api-version` query. An `api-key` header (set here or by the user)
 * replaces the bearer token (chat_post.ts).
 */
function withAuth(options: ProviderOptions): Pick<OpenAIProviderOptions, "baseURL" | "headers"> {
  const headers = { ...options.headers };
  if (authStyle(options) === "api-key" && options.apiKey) headers["api-key"] = options.apiKey;
  let baseURL = options.baseURL;
  if (options.apiVersion) {
    const url = new URL(baseURL);
    url.searchParams.set("api-version", options.apiVersion);
    baseURL = url.toString();
  }
  return { baseURL, headers };
}
