/**
 * One streamed Chat Completions request: npm:openai's own server-sent-event
 * decoder and error classes (`openai/core/streaming`, `openai/core/error`),
 * without its client. The client's module graph holds every resource of the
 * API (audio, files, vector stores, realtime…, ~1 MB); evaluating it cost a
 * model run's engine a large part of each start (docs/performance.md), and skiff
 * uses one endpoint of it, with retries, timeouts and error bodies of its own
 * (openai_provider.ts). What the client did for that request is done here the
 * same way: the URL (a base's own query kept), the headers, which error a
 * failed request becomes, and the stream of chunks.
 */
import { Stream } from "openai/core/streaming";
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai/core/error";
import type { ChatCompletionChunk } from "openai/resources/chat/completions";
import type { RequestBody } from "./request_body.ts";

export interface ChatPost {
  /** The endpoint's base (`http://127.0.0.1:8080/v1`), without trailing slashes. */
  baseURL: string;
  apiKey: string;
  /**
   * Sent with every request; may replace `Accept` and `Authorization`. With
   * an `api-key` header (Azure OpenAI's way), no bearer token is sent.
   */
  headers?: Record<string, string>;
  /** @default globalThis.fetch */
  fetch?: typeof fetch;
  /** The request's JSON. */
  body: RequestBody;
  /** Aborting it ends the request, or the stream of an answered one. */
  controller: AbortController;
}

/**
 * `path` under `baseURL`: a base with a query (`…?api-version=…`) keeps it
 * after the path, as the openai client does.
 */
export function endpointURL(baseURL: string, path: string): URL {
  if (!baseURL.includes("?")) return new URL(baseURL + path);
  const base = new URL(baseURL);
  const query = base.search;
  base.search = "";
  base.hash = "";
  const text = base.toString();
  const url = new URL(text + (text.endsWith("/") ? path.slice(1) : path));
  url.search = query;
  return url;
}

/** The client's abort error: the abort's reason as its cause. */
function userAbort(signal: AbortSignal): APIUserAbortError {
  const error = new APIUserAbortError();
  Object.defineProperty(error, "cause", {
    value: signal.reason,
    writable: true,
    configurable: true,
  });
  return error;
}

/**
 * POSTs `post.body` to `/chat/completions`; the answer's chunks. Throws the
 * openai client's errors: `APIUserAbortError` when `controller` was aborted,
 * `APIConnectionTimeoutError` or `APIConnectionError` when fetch failed, and
 * the `APIError` of the status (`RateLimitError`…) with the server's error
 * body when it answered with one.
 */
export async function postChatCompletions(
  post: ChatPost,
): Promise<AsyncIterable<ChatCompletionChunk>> {
  const signal = post.controller.signal;
  if (signal.aborted) throw userAbort(signal);
  const headers = new Headers({ Accept: "application/json" });
  for (const [name, value] of Object.entries(post.headers ?? {})) headers.set(name, value);
  // A key sent as `api-key` (Azure OpenAI) is not sent a second time as a bearer token.
  if (!headers.has("authorization") && !headers.has("api-key")) {
    headers.set("authorization", `Bearer ${post.apiKey}`);
  }
  headers.set("content-type", "application/json");
  let response: Response;
  try {
    response = await (post.fetch ?? fetch)(endpointURL(post.baseURL, "/chat/completions"), {
      method: "POST",
      headers,
      body: post.body,
      signal,
    });
  } catch (thrown) {
    if (signal.aborted) throw userAbort(signal);
    const error = thrown instanceof Error ? thrown : new Error(String(thrown));
    const cause = "cause" in error ? String(error.cause) : "";
    if (error.name === "AbortError" || /timed? ?out/i.test(String(error) + cause)) {
      throw Object.assign(new APIConnectionTimeoutError(), { cause: error });
    }
    throw new APIConnectionError({ cause: error });
  }
  if (!response.ok) {
    const text = await response.text().catch((error) => (error as Error).message);
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      json = undefined;
    }
    // A body that is not `{"error": …}` is the error itself.
    const body = json !== null && typeof json === "object" &&
        (json as { error?: unknown }).error == null
      ? { error: json }
      : json;
    throw APIError.generate(
      response.status,
      body as Record<string, unknown> | undefined,
      json ? undefined : text,
      response.headers,
    );
  }
  return Stream.fromSSEResponse<ChatCompletionChunk>(response, post.controller);
}
