/**
 * The provider against the scripted mock over real HTTP: streaming text,
 * parallel tool calls, usage, and the request it puts on the wire.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { startMockServer } from "../support/mock_server.ts";
import { createOpenAIProvider } from "../../src/provider/openai_provider.ts";
import type { ChatRequest } from "../../src/provider/types.ts";

const request = (overrides: Partial<ChatRequest> = {}): ChatRequest => ({
  model: "test-model",
  messages: [
    { role: "system", content: "You are terse." },
    { role: "user", content: "Say hello." },
  ],
  tools: [],
  ...overrides,
});

Deno.test("streams text as deltas and returns the whole answer", async () => {
  const mock = startMockServer([{ text: "Hello from the mock server, streamed in pieces." }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const deltas: string[] = [];
    const answer = await provider.stream(request(), { onText: (d) => deltas.push(d) });
    assertEquals(answer.text, "Hello from the mock server, streamed in pieces.");
    assertEquals(deltas.join(""), answer.text);
    assert(deltas.length > 3, `expected several deltas, got ${deltas.length}`);
    assertEquals(answer.finishReason, "stop");
    assertEquals(answer.toolCalls, []);

    const sent = mock.requests[0];
    assertEquals(sent.model, "test-model");
    assertEquals(sent.stream, true);
    assertEquals(sent.stream_options, { include_usage: true });
    assertEquals(sent.messages, request().messages);
    assertEquals("tools" in sent, false, "an empty tool list is not sent");
  } finally {
    await mock.close();
  }
});

Deno.test("assembles several parallel tool calls from their deltas", async () => {
  const mock = startMockServer([{
    text: "Let me look.",
    toolCalls: [
      { name: "read", arguments: { path: "src/app.ts", offset: 10 }, id: "call_a" },
      { name: "bash", arguments: { command: "git status --short" }, id: "call_b" },
      { name: "glob", arguments: '{"pattern":"**/*.md"}' },
    ],
  }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const answer = await provider.stream(
      request({
        tools: [{
          name: "read",
          description: "Read a file",
          parameters: { type: "object", properties: { path: { type: "string" } } },
        }],
        maxOutputTokens: 1234,
      }),
      {},
    );
    assertEquals(answer.text, "Let me look.");
    assertEquals(answer.finishReason, "tool_calls");
    assertEquals(answer.toolCalls.map((c) => [c.id, c.name, JSON.parse(c.arguments)]), [
      ["call_a", "read", { path: "src/app.ts", offset: 10 }],
      ["call_b", "bash", { command: "git status --short" }],
      ["call_mock_2", "glob", { pattern: "**/*.md" }],
    ]);

    const sent = mock.requests[0];
    assertEquals(sent.max_tokens, 1234);
    assertEquals(sent.tools, [{
      type: "function",
      function: {
        name: "read",
        description: "Read a file",
        parameters: { type: "object", properties: { path: { type: "string" } } },
      },
    }]);
  } finally {
    await mock.close();
  }
});

Deno.test("sends earlier tool calls and results back in the wire shape", async () => {
  const mock = startMockServer([{ text: "done" }]);
  try {
    const provider = createOpenAIProvider({
      baseURL: mock.url,
      maxTokensField: "max_completion_tokens",
    });
    await provider.stream(
      request({
        maxOutputTokens: 99,
        messages: [
          { role: "user", content: "list files" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{ id: "call_1", name: "bash", arguments: '{"command":"ls"}' }],
          },
          { role: "tool", tool_call_id: "call_1", content: "README.md" },
        ],
      }),
      {},
    );
    const sent = mock.requests[0];
    assertEquals(sent.max_completion_tokens, 99);
    assertEquals("max_tokens" in sent, false);
    assertEquals((sent.messages as unknown[])[1], {
      role: "assistant",
      content: null,
      tool_calls: [{
        id: "call_1",
        type: "function",
        function: { name: "bash", arguments: '{"command":"ls"}' },
      }],
    });
    assertEquals((sent.messages as unknown[])[2], {
      role: "tool",
      tool_call_id: "call_1",
      content: "README.md",
    });
  } finally {
    await mock.close();
  }
});

Deno.test("records the usage the server reports", async () => {
  const mock = startMockServer([
    { text: "counted", usage: { prompt_tokens: 1200, completion_tokens: 34 } },
    { text: "uncounted", usage: null },
  ]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const counted = await provider.stream(request(), {});
    assertEquals(counted.usage, { input_tokens: 1200, output_tokens: 34, total_tokens: 1234 });
    const uncounted = await provider.stream(request(), {});
    assertEquals(uncounted.text, "uncounted");
    assertEquals(uncounted.usage, { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  } finally {
    await mock.close();
  }
});

Deno.test("cancelling through the signal stops a hanging request without retrying", async () => {
  const mock = startMockServer([{ hang: true }, { text: "too late" }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const controller = new AbortController();
    const retries: string[] = [];
    setTimeout(() => controller.abort(new DOMException("user pressed Ctrl-C", "AbortError")), 100);
    const error = await provider.stream(
      request(),
      { onRetry: (r) => retries.push(r.reason) },
      controller.signal,
    )
      .then(() => undefined, (e) => e);
    assert(error instanceof DOMException && error.name === "AbortError", `got ${error}`);
    assertEquals(retries, []);
    assertEquals(mock.requests.length, 1);
  } finally {
    await mock.close();
  }
});

Deno.test("an error thrown by onText reaches the caller and is not mistaken for a network fault", async () => {
  const mock = startMockServer([{ text: "first answer" }, { text: "second answer" }]);
  try {
    const provider = createOpenAIProvider({ baseURL: mock.url });
    const retries: unknown[] = [];
    const error = await provider.stream(request(), {
      onText: () => {
        throw new Error("renderer broke");
      },
      onRetry: (r) => retries.push(r),
    }).then(() => undefined, (e) => e);
    assert(error instanceof Error && error.message === "renderer broke", `got ${error}`);
    assertEquals(retries, []);
    assertEquals(mock.requests.length, 1);
  } finally {
    await mock.close();
  }
});

Deno.test("a base URL that is not http(s) is refused up front, naming the value", () => {
  for (const bad of ["localhost:8080/v1", "ftp://example.com/v1", ""]) {
    try {
      createOpenAIProvider({ baseURL: bad });
      assert(false, `accepted ${JSON.stringify(bad)}`);
    } catch (error) {
      assert(error instanceof RangeError, `got ${error}`);
      assert(error.message.includes(`"${bad}"`), error.message);
    }
  }
});
