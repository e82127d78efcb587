/**
 * The provider against servers that stretch the wire format the way real
 * OpenAI-compatible servers do: keep-alive comments, CRLF framing, a stream
 * ending with [DONE] but no finish_reason, tool-call fragments that repeat
 * the name or carry arguments as an object, the legacy function_call delta,
 * and error objects or plain-text bodies instead of OpenAI-style errors.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";
import { createOpenAIProvider } from "../../src/provider/openai_provider.ts";
import { type ChatRequest, ProviderError } from "../../src/provider/types.ts";

const request: ChatRequest = {
  model: "test-model",
  messages: [{ role: "user", content: "hi" }],
  tools: [],
};

/** Run one request against a script; waits are skipped, retries are counted. */
async function ask(script: MockTurn[], extra: { maxRetries?: number } = {}) {
  const mock = startMockServer(script);
  const retries: string[] = [];
  const deltas: string[] = [];
  try {
    const provider = createOpenAIProvider({
      baseURL: mock.url,
      sleep: () => Promise.resolve(),
      ...extra,
    });
    const outcome = await provider.stream(request, {
      onText: (d) => deltas.push(d),
      onRetry: (r) => retries.push(r.reason),
    }).then((answer) => ({ answer }), (error: unknown) => ({ error }));
    return { ...outcome, retries, deltas, requests: mock.requests.length };
  } finally {
    await mock.close();
  }
}

Deno.test("keep-alive comments and CRLF line endings do not disturb the answer", async () => {
  const result = await ask([{
    text: "Framed with CRLF and pings.",
    toolCalls: [{ name: "read", arguments: { path: "a.ts" }, id: "call_1" }],
    wire: { lineEnding: "\r\n", keepAlive: true },
  }]);
  assert("answer" in result, `failed: ${"error" in result ? result.error : ""}`);
  assertEquals(result.answer.text, "Framed with CRLF and pings.");
  assertEquals(result.answer.toolCalls, [
    { id: "call_1", name: "read", arguments: '{"path":"a.ts"}' },
  ]);
  assertEquals(result.retries, []);
});

Deno.test("a stream that ends with [DONE] but no finish_reason is a complete answer", async () => {
  const text = await ask([{ text: "All done here.", finishReason: null }, { text: "unreached" }]);
  assert("answer" in text, `failed: ${"error" in text ? text.error : ""}`);
  assertEquals(text.answer.text, "All done here.");
  assertEquals(text.answer.finishReason, "stop");
  assertEquals(text.retries, [], "nothing to retry: the server said [DONE]");
  assertEquals(text.requests, 1);

  const calls = await ask([{
    toolCalls: [{ name: "bash", arguments: { command: "ls" }, id: "call_9" }],
    finishReason: null,
  }]);
  assert("answer" in calls, `failed: ${"error" in calls ? calls.error : ""}`);
  assertEquals(calls.answer.finishReason, "tool_calls");
  assertEquals(calls.answer.toolCalls, [
    { id: "call_9", name: "bash", arguments: '{"command":"ls"}' },
  ]);
});

Deno.test("tool-call fragments that repeat the name or carry an object still make one call", async () => {
  const calls = [
    { name: "read", arguments: { path: "src/a.ts" }, id: "call_r" },
    { name: "grep", arguments: { pattern: 'say "hi"\\n' }, id: "call_g" },
  ];
  for (const wire of [{ repeatToolNames: true }, { objectArguments: true }]) {
    const result = await ask([{ toolCalls: calls, wire }]);
    assert("answer" in result, `failed: ${"error" in result ? result.error : ""}`);
    assertEquals(
      result.answer.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]),
      calls.map((c) => [c.id, c.name, c.arguments]),
      JSON.stringify(wire),
    );
  }
});

Deno.test("a legacy function_call delta becomes a tool call", async () => {
  const result = await ask([{
    toolCalls: [{ name: "bash", arguments: { command: "git status" } }],
    wire: { legacyFunctionCall: true },
  }]);
  assert("answer" in result, `failed: ${"error" in result ? result.error : ""}`);
  assertEquals(result.answer.finishReason, "function_call");
  assertEquals(result.answer.toolCalls.length, 1);
  assertEquals(result.answer.toolCalls[0].name, "bash");
  assertEquals(JSON.parse(result.answer.toolCalls[0].arguments), { command: "git status" });
  assert(result.answer.toolCalls[0].id !== "", "an id is made up for the call");
});

Deno.test("error bodies that are plain text, HTML or JSON without `error` reach the message", async () => {
  const cases: [MockTurn, string][] = [
    [{ status: 500, body: "upstream model process crashed" }, "upstream model process crashed"],
    [{ status: 404, body: { detail: "Model llama9 not found" } }, "Model llama9 not found"],
    [{ status: 400, body: { message: "context window exceeded" } }, "context window exceeded"],
    [{
      status: 502,
      body: "<html><head><title>502 Bad Gateway</title></head><body><h1>502 Bad Gateway</h1>" +
        "<hr>nginx</body></html>",
    }, "502 Bad Gateway nginx"],
  ];
  for (const [turn, shown] of cases) {
    const result = await ask([turn], { maxRetries: 0 });
    assert("error" in result, "expected a failure");
    const error = result.error;
    assert(error instanceof ProviderError, `got ${error}`);
    assert(error.message.includes(shown), `${JSON.stringify(turn)} → ${error.message}`);
    assert(!error.message.includes("<html>"), error.message);
  }
});

Deno.test("an error object inside a 200 stream: a client fault is not retried, a server fault is", async () => {
  const refused = await ask([
    {
      text: "Partial",
      wire: { error: { message: "prompt is too long for this model", code: 400 } },
    },
    { text: "unreached" },
  ]);
  assert("error" in refused, "expected a failure");
  assert(refused.error instanceof ProviderError, `got ${refused.error}`);
  assert(refused.error.message.includes("prompt is too long"), refused.error.message);
  assertEquals(refused.retries, [], "a 400 inside the stream will fail the same way again");
  assertEquals(refused.requests, 1);

  const flaky = await ask([
    { text: "Partial", wire: { error: { message: "provider disconnected", code: 502 } } },
    { text: "Partial answer, complete." },
  ]);
  assert("answer" in flaky, `failed: ${"error" in flaky ? flaky.error : ""}`);
  assertEquals(flaky.answer.text, "Partial answer, complete.");
  assertEquals(flaky.deltas.join(""), "Partial answer, complete.");
  assertEquals(flaky.retries.length, 1);
  assert(flaky.retries[0].includes("mid-stream"), flaky.retries[0]);
});

Deno.test("with maxRetries 0 one failure is reported as one, not as the server 'kept' failing", async () => {
  for (const status of [429, 503]) {
    const result = await ask([{ status }, { text: "unreached" }], { maxRetries: 0 });
    assert("error" in result && result.error instanceof ProviderError, "expected a failure");
    assertEquals(result.requests, 1);
    assertEquals(result.retries, []);
    assert(!/kept|attempts/.test(result.error.message), result.error.message);
    assert(result.error.message.includes(String(status)), result.error.message);
  }
});

Deno.test("a server that answers with one JSON object instead of a stream is understood", async () => {
  const result = await ask([{
    text: "Not streamed at all.",
    toolCalls: [{ name: "read", arguments: { path: "x.ts" }, id: "call_j" }],
    usage: { prompt_tokens: 10, completion_tokens: 5 },
    wire: { ignoreStream: true },
  }, { text: "unreached" }]);
  assert("answer" in result, `failed: ${"error" in result ? result.error : ""}`);
  assertEquals(result.answer.text, "Not streamed at all.");
  assertEquals(result.deltas.join(""), "Not streamed at all.");
  assertEquals(result.answer.toolCalls, [
    { id: "call_j", name: "read", arguments: '{"path":"x.ts"}' },
  ]);
  assertEquals(result.answer.finishReason, "tool_calls");
  assertEquals(result.answer.usage, { input_tokens: 10, output_tokens: 5, total_tokens: 15 });
  assertEquals(result.retries, []);
});

Deno.test("an HTTP 200 whose JSON body is an error object is reported, not taken for a cut", async () => {
  const result = await ask([
    { status: 200, body: { error: { message: "model is not loaded", code: 400 } } },
    { text: "unreached" },
  ]);
  assert("error" in result && result.error instanceof ProviderError, "expected a failure");
  assert(result.error.message.includes("model is not loaded"), result.error.message);
  assertEquals(result.requests, 1);
});

Deno.test("a server that refuses stream_options is asked again without it, and later requests too", async () => {
  const refusal = {
    status: 400,
    body: { error: { message: "Unrecognized request argument supplied: stream_options" } },
  };
  const mock = startMockServer([refusal, { text: "answered" }, { text: "again" }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url, sleep: () => Promise.resolve() });
    const retries: unknown[] = [];
    const first = await provider.stream(request, { onRetry: (r) => retries.push(r) });
    assertEquals(first.text, "answered");
    await provider.stream(request, {});
    assertEquals(mock.requests.map((r) => "stream_options" in r), [true, false, false]);
    assertEquals(retries, []);
  } finally {
    await mock.close();
  }
});

Deno.test("whole tool calls sent with neither index nor id stay separate calls", async () => {
  const result = await ask([{
    toolCalls: [
      { name: "read", arguments: { path: "a.ts" } },
      { name: "read", arguments: { path: "b.ts" } },
      { name: "bash", arguments: { command: "ls" } },
    ],
    wire: { bareCalls: true },
  }]);
  assert("answer" in result, `failed: ${"error" in result ? result.error : ""}`);
  assertEquals(
    result.answer.toolCalls.map((c) => [c.name, JSON.parse(c.arguments)]),
    [["read", { path: "a.ts" }], ["read", { path: "b.ts" }], ["bash", { command: "ls" }]],
  );
  const ids = result.answer.toolCalls.map((c) => c.id);
  assert(ids.every((id) => id !== "") && new Set(ids).size === 3, `ids: ${ids}`);
});

Deno.test("a base URL that serves a web page is named as the likely mistake, without retrying", async () => {
  const page = "<!doctype html><html><head><title>Chat UI</title></head><body>app</body></html>";
  const result = await ask([
    { status: 200, body: page, contentType: "text/html; charset=utf-8" },
    { text: "unreached" },
  ]);
  assert("error" in result && result.error instanceof ProviderError, "expected a failure");
  assert(result.error.message.includes("web page"), result.error.message);
  assert(result.error.message.includes("OPENAI_BASE_URL"), result.error.message);
  assert(result.error.message.includes("/v1"), result.error.message);
  assertEquals(result.retries, []);
  assertEquals(result.requests, 1);
});

Deno.test("a model that wants max_completion_tokens under a name we did not know gets it", async () => {
  const refusal = {
    status: 400,
    body: {
      error: {
        message: "Unsupported parameter: 'max_tokens' is not supported with this model. " +
          "Use 'max_completion_tokens' instead.",
      },
    },
  };
  const mock = startMockServer([refusal, { text: "answered" }, { text: "again" }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url, sleep: () => Promise.resolve() });
    const limited = { ...request, model: "my-reasoning-deployment", maxOutputTokens: 2048 };
    const retries: unknown[] = [];
    const answer = await provider.stream(limited, { onRetry: (r) => retries.push(r) });
    assertEquals(answer.text, "answered");
    await provider.stream(limited, {});
    assertEquals(
      mock.requests.map((r) => [r.max_tokens, r.max_completion_tokens]),
      [[2048, undefined], [undefined, 2048], [undefined, 2048]],
    );
    assertEquals(retries, []);
  } finally {
    await mock.close();
  }
});

Deno.test("each tool call's whole name is announced once, as its arguments begin, on every wire", async () => {
  const calls = [
    { name: "bash", arguments: { command: "true" }, id: "call_b" },
    { name: "read", arguments: { file_path: "a.ts" }, id: "call_r" },
  ];
  for (
    const wire of [{}, { repeatToolNames: true }, { objectArguments: true }, { bareCalls: true }]
  ) {
    const mock = startMockServer([{ toolCalls: calls, wire }]);
    try {
      const named: string[] = [];
      const provider = createOpenAIProvider({ baseURL: mock.url, sleep: () => Promise.resolve() });
      const answer = await provider.stream(request, {
        onToolName: (name) => {
          named.push(name);
          throw new Error("a preparation that fails does not stop the answer");
        },
      });
      assertEquals(named, ["bash", "read"], JSON.stringify(wire));
      assertEquals(answer.toolCalls.map((call) => call.name), ["bash", "read"]);
    } finally {
      await mock.close();
    }
  }
});
