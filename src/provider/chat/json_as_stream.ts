/**
 * Successful answers that are not an event stream. Some servers and proxies
 * answer a streaming request with one ordinary JSON completion. The client library reads only event streams there, finds no
 * events and ends quietly, so the answer the server gave would be thrown
 * away and the request repeated. This wraps fetch to turn such a JSON answer
 * into the equivalent event stream: one chunk with the whole message, its
 * finish reason and usage, then [DONE]. An `{"error": …}` body becomes an
 * error event, which the library reports like one sent mid-stream. A web
 * page (a chat UI or a proxy's page at a wrong base URL, served for any path)
 * is not a model at all: it fails at once with `NotTheApiError`.
 */

/** The endpoint answered with something that is no model API; retrying cannot help. */
export class NotTheApiError extends Error {
  constructor(readonly contentType: string) {
    super(`a web page (${contentType.split(";")[0].trim()})`);
    this.name = "NotTheApiError";
  }
}

export function jsonAsStream(base: typeof fetch = globalThis.fetch): typeof fetch {
  return async (input, init) => {
    const response = await base(input, init);
    const type = response.headers.get("content-type") ?? "";
    if (response.ok && /^text\/html\b/i.test(type)) {
      await response.body?.cancel();
      throw new NotTheApiError(type);
    }
    if (!response.ok || !/\bjson\b/i.test(type) || /event-stream/i.test(type)) return response;
    const text = await response.text();
    let data: unknown;
    try {
      data = JSON.parse(text);
    } catch {
      data = undefined; // not JSON after all: let the library report what it finds
    }
    const events = data !== null && typeof data === "object" ? toEvents(data) : undefined;
    const headers = new Headers(response.headers);
    headers.delete("content-length");
    if (events) headers.set("content-type", "text/event-stream");
    const body = events ? events.map((event) => `data: ${event}\n\n`).join("") : text;
    return new Response(body, {
      status: response.status,
      statusText: response.statusText,
      headers,
    });
  };
}

interface Completion {
  id?: unknown;
  model?: unknown;
  error?: unknown;
  usage?: unknown;
  choices?: Array<{
    index?: number;
    finish_reason?: unknown;
    message?: {
      content?: unknown;
      tool_calls?: Array<{ id?: unknown; function?: { name?: unknown; arguments?: unknown } }>;
      function_call?: unknown;
    };
  }>;
}

/** The event payloads equivalent to a completion object, or undefined when it is not one. */
function toEvents(data: object): string[] | undefined {
  const completion = data as Completion;
  if (completion.error !== undefined && completion.error !== null) {
    return [JSON.stringify({ error: completion.error })];
  }
  if (!Array.isArray(completion.choices)) return undefined;
  const base = { id: completion.id, object: "chat.completion.chunk", model: completion.model };
  const events = completion.choices.map((choice) => {
    const message = choice.message ?? {};
    const delta: Record<string, unknown> = {};
    if (typeof message.content === "string") delta.content = message.content;
    if (Array.isArray(message.tool_calls)) {
      delta.tool_calls = message.tool_calls.map((call, index) => ({ index, ...call }));
    }
    if (message.function_call) delta.function_call = message.function_call;
    return JSON.stringify({
      ...base,
      choices: [{ index: choice.index ?? 0, delta, finish_reason: choice.finish_reason ?? null }],
    });
  });
  if (completion.usage) {
    events.push(JSON.stringify({ ...base, choices: [], usage: completion.usage }));
  }
  events.push("[DONE]");
  return events;
}
