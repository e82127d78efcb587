/**
 * postChatCompletions (src/provider/chat/chat_post.ts) against the openai client
 * it stands in for: for the same answers of an injected fetch, the same URL,
 * the same chunks, and the same errors (class, status, message).
 */
import OpenAI, { type APIError, type APIUserAbortError } from "openai";
import { assert, assertEquals } from "../../support/assert.ts";
import { endpointURL, postChatCompletions } from "../../../src/provider/chat/chat_post.ts";

type Answer = () => Response | Promise<Response>;

const sse = (...events: string[]) =>
  new Response(events.map((data) => `data: ${data}\n\n`).join(""), {
    headers: { "content-type": "text/event-stream" },
  });
const chunk = (text: string) =>
  JSON.stringify({
    id: "c",
    object: "chat.completion.chunk",
    choices: [{ index: 0, delta: { content: text } }],
  });

const ANSWERS: Record<string, Answer> = {
  "a stream": () => sse(chunk("he"), chunk("llo"), "[DONE]"),
  "a stream without [DONE]": () => sse(chunk("x")),
  "an error event in the stream": () =>
    sse(chunk("a"), JSON.stringify({ error: { message: "overloaded", code: "busy" } })),
  "malformed JSON in the stream": () => sse("{nope"),
  "429 with an error body": () =>
    new Response(JSON.stringify({ error: { message: "slow down", type: "rate" } }), {
      status: 429,
      headers: { "retry-after": "2", "x-request-id": "req_1" },
    }),
  "400 with a bare JSON body": () =>
    new Response(JSON.stringify({ detail: "bad field" }), { status: 400 }),
  "500 with a text body": () => new Response("upstream exploded", { status: 500 }),
  "404 with no body": () => new Response(null, { status: 404 }),
  "401 with a JSON string": () => new Response('"no key"', { status: 401 }),
  "503 with JSON null": () => new Response("null", { status: 503 }),
  "502 with JSON 0": () => new Response("0", { status: 502 }),
  "418 with a JSON list": () => new Response("[1]", { status: 418 }),
  "422 with an error string": () => new Response('{"error":"bad"}', { status: 422 }),
  "fetch fails": () => {
    throw new TypeError("error sending request: connection refused");
  },
  "fetch times out": () => {
    throw new TypeError("error sending request: operation timed out");
  },
};

interface Outcome {
  url?: string;
  chunks?: unknown[];
  error?: { name: string; status?: number; message: string; requestID?: string | null };
}

async function outcome(
  run: (fetch: typeof globalThis.fetch) => Promise<AsyncIterable<unknown>>,
  answer: Answer,
) {
  const seen: Outcome = {};
  const fetch = (input: RequestInfo | URL) => {
    seen.url = String(input instanceof Request ? input.url : input);
    return Promise.resolve().then(answer);
  };
  try {
    const chunks = [];
    for await (const item of await run(fetch as typeof globalThis.fetch)) chunks.push(item);
    seen.chunks = chunks;
  } catch (error) {
    const { name, status, message, requestID } = error as APIError;
    seen.error = { name: (error as Error).constructor.name || name, status, message, requestID };
  }
  return seen;
}

function byClient(baseURL: string) {
  return (fetch: typeof globalThis.fetch) =>
    new OpenAI({ baseURL, apiKey: "k", maxRetries: 0, fetch, dangerouslyAllowBrowser: true })
      .post<AsyncIterable<unknown>>("/chat/completions", {
        body: new Blob(["{}"]),
        headers: { "content-type": "application/json" },
        stream: true,
        maxRetries: 0,
      });
}

function byPost(baseURL: string) {
  return (fetch: typeof globalThis.fetch) =>
    postChatCompletions({
      baseURL,
      apiKey: "k",
      fetch,
      body: new Blob(["{}"]),
      controller: new AbortController(),
    });
}

Deno.test("postChatCompletions: the openai client's chunks and errors, answer by answer", async () => {
  const originalError = console.error;
  console.error = () => {}; // the decoder logs malformed JSON, as the client does
  try {
    for (const [name, answer] of Object.entries(ANSWERS)) {
      const base = "http://127.0.0.1:9/v1";
      const expected = await outcome(byClient(base), answer);
      const actual = await outcome(byPost(base), answer);
      assertEquals(actual, expected, name);
    }
  } finally {
    console.error = originalError;
  }
});

Deno.test("endpointURL: the client's URL, a base's own query kept after the path", async () => {
  for (
    const base of [
      "http://127.0.0.1:8080/v1",
      "https://example.com",
      "https://res.example.com/openai/deployments/gpt?api-version=2024-10-21",
      "https://res.example.com/openai/deployments/gpt/?api-version=1&x=y",
    ]
  ) {
    const client = await outcome(byClient(base), ANSWERS["a stream"]);
    assertEquals(endpointURL(base, "/chat/completions").href, client.url, base);
  }
});

Deno.test("postChatCompletions: headers, and an abort before or during the request", async () => {
  let sent: Headers | undefined;
  const fetch = (_input: RequestInfo | URL, init?: RequestInit) => {
    sent = new Headers(init?.headers);
    return new Promise<Response>((_resolve, reject) => {
      init?.signal?.addEventListener(
        "abort",
        () => reject(new DOMException("aborted", "AbortError")),
      );
    });
  };
  const controller = new AbortController();
  const pending = postChatCompletions({
    baseURL: "http://127.0.0.1:9/v1",
    apiKey: "sk-1",
    headers: { "X-Title": "skiff", Accept: "text/event-stream", "Content-Type": "text/plain" },
    fetch: fetch as typeof globalThis.fetch,
    body: new Blob(["{}"]),
    controller,
  });
  await Promise.resolve();
  controller.abort("stopped");
  const error = await pending.then(() => undefined, (thrown) => thrown as APIUserAbortError);
  assert(error instanceof OpenAI.APIUserAbortError, String(error));
  assertEquals(error.cause, "stopped");
  assertEquals(sent?.get("authorization"), "Bearer sk-1");
  assertEquals(sent?.get("accept"), "text/event-stream");
  assertEquals(sent?.get("x-title"), "skiff");
  assertEquals(sent?.get("content-type"), "application/json");

  const early = await postChatCompletions({
    baseURL: "http://127.0.0.1:9/v1",
    apiKey: "k",
    fetch: (() => Promise.reject(new Error("never called"))) as typeof globalThis.fetch,
    body: new Blob(["{}"]),
    controller,
  }).then(() => undefined, (thrown) => thrown);
  assert(early instanceof OpenAI.APIUserAbortError, String(early));
});
