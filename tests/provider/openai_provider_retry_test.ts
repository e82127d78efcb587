/**
 * Retries as a user experiences them: a rate limit waited out, a dead server
 * reported clearly, a cut stream resumed without repeated text, a refused
 * connection failing fast, a bad request not retried. Waits go through an
 * injected sleep on a virtual clock, so the tests check the delays without
 * spending them.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { startMockServer } from "../support/mock_server.ts";
import {
  createOpenAIProvider,
  type OpenAIProviderOptions,
} from "../../src/provider/openai_provider.ts";
import { type ChatRequest, ProviderError } from "../../src/provider/types.ts";

const request: ChatRequest = {
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
};

/** Sleep that advances a virtual clock instead of waiting. */
function virtualTime() {
  const start = Date.now();
  let slept = 0;
  const delays: number[] = [];
  return {
    delays,
    now: () => Date.now() + slept,
    elapsed: () => Date.now() - start + slept,
    sleep: (ms: number) => {
      delays.push(ms);
      slept += ms;
      return Promise.resolve();
    },
  };
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise;
  } catch (error) {
    return error;
  }
  throw new Error("expected the call to fail, but it succeeded");
}

function provider(
  url: string,
  time: ReturnType<typeof virtualTime>,
  extra: Partial<OpenAIProviderOptions> = {},
) {
  return createOpenAIProvider({
    baseURL: url,
    sleep: time.sleep,
    now: time.now,
    random: () => 0.5, // no jitter: delays are exactly 500, 1000, 2000…
    ...extra,
  });
}

Deno.test("a 429 with Retry-After is waited out for exactly that long, then succeeds", async () => {
  const mock = startMockServer([{ status: 429, retryAfter: 3 }, { text: "finally" }]);
  try {
    const time = virtualTime();
    const retries: { attempt: number; delayMs: number; reason: string }[] = [];
    const answer = await provider(mock.url, time).stream(request, {
      onRetry: (r) => retries.push(r),
    });
    assertEquals(answer.text, "finally");
    assertEquals(time.delays, [3000]);
    assertEquals(retries, [{ attempt: 1, delayMs: 3000, reason: "429 Too Many Requests" }]);
    assertEquals(mock.requests.length, 2);
  } finally {
    await mock.close();
  }
});

Deno.test("Retry-After as an HTTP date, and an excessive one is capped", async () => {
  const inTenSeconds = new Date(Date.now() + 10_000).toUTCString();
  const mock = startMockServer([
    { status: 503, retryAfter: inTenSeconds },
    { status: 429, retryAfter: 86_400 },
    { text: "ok" },
  ]);
  try {
    const time = virtualTime();
    await provider(mock.url, time, { retryAfterCapMs: 60_000 }).stream(request, {});
    assert(time.delays[0] > 7_000 && time.delays[0] <= 10_000, `date wait ${time.delays[0]}`);
    assertEquals(time.delays[1], 60_000);
  } finally {
    await mock.close();
  }
});

Deno.test("500 on every attempt: gives up after maxRetries naming endpoint and status", async () => {
  const mock = startMockServer(
    Array.from(
      { length: 5 },
      () => ({ status: 500, body: { error: { message: "model crashed" } } }),
    ),
  );
  try {
    const time = virtualTime();
    const error = await rejection(provider(mock.url, time).stream(request, {}));
    assert(error instanceof ProviderError, `got ${error}`);
    assertEquals(error.status, 500);
    assertEquals(error.endpoint, mock.url);
    assert(error.message.includes(mock.url), error.message);
    assert(error.message.includes("500 Internal Server Error"), error.message);
    assert(error.message.includes("model crashed"), error.message);
    assert(error.message.includes("after 5 attempts"), error.message);
    assert(/server is running/.test(error.message), error.message);
    assertEquals(mock.requests.length, 5, "default maxRetries is 4: five requests in all");
    assertEquals(time.delays, [500, 1000, 2000, 4000]);
  } finally {
    await mock.close();
  }
});

Deno.test("maxRetries is honoured", async () => {
  const mock = startMockServer([{ status: 502 }, { status: 502 }, { text: "unreached" }]);
  try {
    const time = virtualTime();
    const error = await rejection(provider(mock.url, time, { maxRetries: 1 }).stream(request, {}));
    assert(error instanceof ProviderError && error.status === 502, `got ${error}`);
    assertEquals(mock.requests.length, 2);
  } finally {
    await mock.close();
  }
});

Deno.test("a cut stream is retried and no text reaches the user twice", async () => {
  const full = "The quick brown fox jumps over the lazy dog, twice over.";
  const mock = startMockServer([{ cut: true, text: full }, { text: full }]);
  try {
    const time = virtualTime();
    const deltas: string[] = [];
    const reasons: string[] = [];
    const answer = await provider(mock.url, time).stream(request, {
      onText: (d) => deltas.push(d),
      onRetry: (r) => reasons.push(r.reason),
    });
    assertEquals(deltas.join(""), full, "what the user saw is the answer, once");
    assertEquals(answer.text, full);
    assertEquals(answer.finishReason, "stop");
    assertEquals(reasons.length, 1);
    assert(/cut|ended before/.test(reasons[0]), reasons[0]);
  } finally {
    await mock.close();
  }
});

Deno.test("after a cut, a differently worded retry only adds what goes past the shown text", async () => {
  const first = "Alpha beta gamma delta epsilon zeta";
  const second = "Alpha beta gamma delta epsilon zeta eta theta iota";
  const mock = startMockServer([{ cut: true, text: first }, { text: second }]);
  try {
    const deltas: string[] = [];
    const answer = await provider(mock.url, virtualTime()).stream(request, {
      onText: (d) => deltas.push(d),
    });
    const shownBeforeCut = first.slice(0, Math.ceil(first.length / 2));
    assertEquals(deltas.join(""), shownBeforeCut + second.slice(shownBeforeCut.length));
    assertEquals(answer.text, second, "the final text is the new complete answer");
  } finally {
    await mock.close();
  }
});

Deno.test("a connection refused fails within about 15 s with what to check", async () => {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close(); // nothing listens there now
  const url = `http://127.0.0.1:${port}/v1`;
  // Worst-case jitter and retries far beyond the default: the time budget still stops it.
  for (const extra of [{}, { maxRetries: 50 }]) {
    const time = virtualTime();
    const error = await rejection(
      provider(url, time, { random: () => 0.999, ...extra }).stream(request, {}),
    );
    assert(error instanceof ProviderError, `got ${error}`);
    assert(time.elapsed() < 15_000, `gave up after ${time.elapsed()} ms`);
    assertEquals(error.status, undefined);
    assert(error.message.includes(url), error.message);
    assert(error.message.includes("connection refused"), error.message);
    assert(error.message.includes("server is running"), error.message);
    assert(error.message.includes("OPENAI_BASE_URL"), error.message);
  }
});

Deno.test("a 400 is not retried and the server's reason is shown", async () => {
  const mock = startMockServer([
    { status: 400, body: { error: { message: "max_tokens is too large: 999999" } } },
    { text: "unreached" },
  ]);
  try {
    const time = virtualTime();
    const retries: unknown[] = [];
    const error = await rejection(
      provider(mock.url, time).stream(request, { onRetry: (r) => retries.push(r) }),
    );
    assert(error instanceof ProviderError, `got ${error}`);
    assertEquals(error.status, 400);
    assert(error.message.includes("max_tokens is too large"), error.message);
    assert(error.message.includes(mock.url), error.message);
    assertEquals(mock.requests.length, 1);
    assertEquals(retries, []);
    assertEquals(time.delays, []);
  } finally {
    await mock.close();
  }
});

Deno.test("a 401 points at the API key", async () => {
  const mock = startMockServer([{
    status: 401,
    body: { error: { message: "Incorrect API key" } },
  }]);
  try {
    const error = await rejection(provider(mock.url, virtualTime()).stream(request, {}));
    assert(error instanceof ProviderError && error.status === 401, `got ${error}`);
    assert(error.message.includes("OPENAI_API_KEY"), error.message);
    assertEquals(mock.requests.length, 1);
  } finally {
    await mock.close();
  }
});

Deno.test("a server that never answers times out and is retried", async () => {
  const mock = startMockServer([{ hang: true }, { text: "awake" }]);
  try {
    const time = virtualTime();
    const reasons: string[] = [];
    const answer = await provider(mock.url, time, { requestTimeoutMs: 150 }).stream(request, {
      onRetry: (r) => reasons.push(r.reason),
    });
    assertEquals(answer.text, "awake");
    assertEquals(reasons, ["timed out"]);
  } finally {
    await mock.close();
  }
});

Deno.test("an endpoint that accepts no connection is abandoned within the connect budget", async () => {
  // The mock accepts TCP, so the probe stands in for a host that drops packets.
  const mock = startMockServer([{ hang: true }, { hang: true }, { hang: true }, { text: "no" }]);
  try {
    const time = virtualTime();
    const probed: string[] = [];
    const started = Date.now();
    const error = await rejection(
      provider(mock.url, time, {
        connectTimeoutMs: 1_000,
        probe: (url) => {
          probed.push(url.host);
          return Promise.resolve(false);
        },
      }).stream(request, {}),
    );
    assert(error instanceof ProviderError, `got ${error}`);
    assert(error.message.includes("connection timed out"), error.message);
    assert(error.message.includes(mock.url), error.message);
    assert(Date.now() - started < 2_000, `took ${Date.now() - started} ms`);
    assertEquals(probed[0], new URL(mock.url).host);
  } finally {
    await mock.close();
  }
});

Deno.test("a slow server that accepts connections is waited for, not abandoned", async () => {
  const mock = startMockServer([{ delayMs: 700, text: "thought about it" }]);
  try {
    let probes = 0;
    const retries: unknown[] = [];
    const answer = await provider(mock.url, virtualTime(), {
      connectTimeoutMs: 1_000, // probe after 250 ms
      probe: () => {
        probes++;
        return Promise.resolve(true);
      },
    }).stream(request, { onRetry: (r) => retries.push(r) });
    assertEquals(answer.text, "thought about it");
    assertEquals(probes, 1);
    assertEquals(retries, []);
  } finally {
    await mock.close();
  }
});

Deno.test("cancelling during a Retry-After wait ends at once, with no further request", async () => {
  const mock = startMockServer([{ status: 429, retryAfter: 30 }, { text: "unreached" }]);
  try {
    // The real sleep: the wait must give way to the signal.
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const controller = new AbortController();
    const started = Date.now();
    const error = await rejection(provider.stream(request, {
      onRetry: () => setTimeout(() => controller.abort(), 50),
    }, controller.signal));
    assert(error instanceof DOMException && error.name === "AbortError", `got ${error}`);
    assert(Date.now() - started < 5_000, `took ${Date.now() - started} ms`);
    assertEquals(mock.requests.length, 1);
  } finally {
    await mock.close();
  }
});

Deno.test("Retry-After: 0 on repeated 429s still backs off instead of hammering the server", async () => {
  const mock = startMockServer([
    { status: 429, retryAfter: 0 },
    { status: 429, retryAfter: 0 },
    { status: 429, retryAfter: 0 },
    { text: "through" },
  ]);
  try {
    const time = virtualTime();
    const answer = await provider(mock.url, time).stream(request, {});
    assertEquals(answer.text, "through");
    assertEquals(time.delays, [500, 1000, 2000]);
  } finally {
    await mock.close();
  }
});
