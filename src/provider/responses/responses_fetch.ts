/**
 * A fetch that speaks the Responses API for a client written for Chat
 * Completions: the request to `…/chat/completions` goes to `…/responses`
 * (the base's query kept, so Azure's `api-version` stays), with the body the
 * client was given to send, already written for this API
 * (responses_request.ts), and the answer's events read back as chunks
 * (responses_stream.ts). Failed answers pass through untouched: both APIs
 * report errors as `{"error": {"message": …}}`, so the client reads, retries
 * and explains them as it does any other.
 */
import type { OptionalField } from "./responses_request.ts";
import { ResponsesTranslator, serverSentData } from "./responses_stream.ts";
import { EFFORT_FIELD, refusesEffort } from "../dialects/reasoning_effort.ts";

export interface ResponsesFetchOptions {
  fetch?: typeof fetch;
  /** The body again without an optional field the server refused; undefined when it had none. */
  without(body: unknown, field: OptionalField): Uint8Array<ArrayBuffer> | undefined;
  /** Told each attempt's translator, so the caller reads the reasoning of the one that answered. */
  onAttempt?(translator: ResponsesTranslator): void;
  /** Told each optional field the server refused, with its words, before asking again without it. */
  onRefused?(field: OptionalField, said: string): void;
}

/** Wraps `options.fetch` (default: the global one) as described above. */
export function responsesFetch(options: ResponsesFetchOptions): typeof fetch {
  const base = options.fetch ?? globalThis.fetch;
  return async (input, init) => {
    const url = new URL(input instanceof Request ? input.url : String(input));
    url.pathname = url.pathname.replace(/\/chat\/completions$/, "/responses");
    let body = init?.body;
    let response = await base(url, init);
    // A server (or a model) without an optional field: ask again at once without it. Each
    // field is left out once at most, so this ends.
    for (;;) {
      const said = response.status === 400 ? await response.clone().text() : "";
      const field = said ? refusedField(said) : undefined;
      const again = field && options.without(body, field);
      if (!again) break;
      options.onRefused?.(field, errorMessage(said));
      await response.body?.cancel();
      body = again;
      response = await base(url, { ...init, body });
    }
    if (!response.ok || !response.body) return response;
    const translator = new ResponsesTranslator();
    options.onAttempt?.(translator);
    const type = response.headers.get("content-type") ?? "";
    if (/\bjson\b/i.test(type) && !/event-stream/i.test(type)) {
      // One response object instead of a stream (a proxy ignoring `stream`).
      const whole = await response.json() as { error?: unknown };
      const chunks = whole.error
        ? [JSON.stringify({ error: whole.error })]
        : translator.response(whole as Parameters<ResponsesTranslator["response"]>[0]);
      return eventStream(response, toStream(chunks));
    }
    return eventStream(response, translate(response.body, translator));
  };
}

/**
 * The optional field a 400 names as not supported: the effort (a model that
 * takes none, or not that one), `reasoning` (a model we took for a
 * reasoning one) or `include` (a server without encrypted reasoning).
 */
function refusedField(text: string): OptionalField | undefined {
  if (/\breasoning[_.]effort\b/i.test(text) && refusesEffort(400, text)) return EFFORT_FIELD;
  if (!/unsupported|not supported|unknown|unrecognized|not allowed|invalid/i.test(text)) {
    return undefined;
  }
  if (/\binclude\b/i.test(text)) return "include";
  if (/\breasoning\b/i.test(text)) return "reasoning";
  return undefined;
}

/** The `error.message` of a refusal's JSON, else its text. */
function errorMessage(text: string): string {
  try {
    const message = (JSON.parse(text) as { error?: { message?: unknown } }).error?.message;
    if (typeof message === "string") return message;
  } catch {
    // Not JSON: the text is the message.
  }
  return text.slice(0, 300);
}

async function* translate(
  body: ReadableStream<Uint8Array>,
  translator: ResponsesTranslator,
): AsyncGenerator<string> {
  for await (const data of serverSentData(body)) {
    let event;
    try {
      event = JSON.parse(data);
    } catch {
      continue; // Not an event we can read; the end event decides whether the answer is whole.
    }
    yield* translator.event(event);
    if (translator.ended) return;
  }
}

function* toStream(chunks: string[]): Generator<string> {
  yield* chunks;
}

/** A 200 event stream of `payloads`, with the original answer's headers otherwise. */
function eventStream(
  original: Response,
  payloads: AsyncIterable<string> | Iterable<string>,
): Response {
  const encoder = new TextEncoder();
  const iterator = (Symbol.asyncIterator in payloads)
    ? (payloads as AsyncIterable<string>)[Symbol.asyncIterator]()
    : (payloads as Iterable<string>)[Symbol.iterator]();
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const next = await iterator.next();
      if (next.done) controller.close();
      else controller.enqueue(encoder.encode(`data: ${next.value}\n\n`));
    },
    async cancel(reason) {
      await iterator.return?.(reason);
      await original.body?.cancel(reason).catch(() => {});
    },
  });
  const headers = new Headers(original.headers);
  headers.set("content-type", "text/event-stream");
  headers.delete("content-length");
  return new Response(body, { status: 200, headers });
}
