/**
 * The Responses API client against the ways servers answer: the documented
 * event stream (tests/support/responses_server.ts), whole items without
 * deltas, one JSON response instead of a stream, an answer cut by the output
 * limit, a failure event, and a model that refuses the `reasoning` field.
 * And what it hands the session: the reasoning text as it streams, and the
 * encrypted reasoning items, which go back even from a new client (a
 * resumed session) when the history carries them.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  createResponsesProvider,
  responsesOrigin,
} from "../../../src/provider/responses/responses_provider.ts";
import type { ChatMessage, ChatRequest } from "../../../src/provider/types.ts";
import { startResponsesServer } from "../../support/responses_server.ts";

const BASE = "http://127.0.0.1:9/v1";
const ask: ChatRequest = {
  model: "gpt-5-codex",
  messages: [{ role: "system", content: "be brief" }, { role: "user", content: "hi" }],
  tools: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
};

function sse(events: Record<string, unknown>[]): Response {
  const text = events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`)
    .join("");
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

const completed = (output: unknown[] = [], usage?: unknown) => ({
  type: "response.completed",
  response: { status: "completed", output, ...(usage ? { usage } : {}) },
});

/** A client whose fetch answers with `answers` in turn, recording each request's URL and body. */
function scripted(answers: (() => Response)[]) {
  const sent: { url: string; body: Record<string, unknown> }[] = [];
  const provider = createResponsesProvider({
    baseURL: BASE,
    sleep: () => Promise.resolve(),
    probe: () => Promise.resolve(true),
    fetch: async (input, init) => {
      sent.push({ url: String(input), body: JSON.parse(await new Response(init?.body).text()) });
      const answer = answers[sent.length - 1];
      if (!answer) throw new Error("no more answers");
      return answer();
    },
  });
  return { provider, sent };
}

Deno.test("whole items without deltas make the same answer", async () => {
  const { provider, sent } = scripted([() =>
    sse([
      {
        type: "response.output_item.done",
        item: {
          id: "msg_1",
          type: "message",
          content: [{ type: "output_text", text: "Reading." }],
        },
      },
      {
        type: "response.output_item.done",
        item: {
          id: "fc_1",
          type: "function_call",
          call_id: "call_1",
          name: "read",
          arguments: '{"file_path":"a"}',
        },
      },
      completed([], { input_tokens: 10, output_tokens: 5, total_tokens: 15 }),
    ])]);
  const answer = await provider.stream(ask, {});
  assertEquals(answer.text, "Reading.");
  assertEquals(answer.toolCalls, [{ id: "call_1", name: "read", arguments: '{"file_path":"a"}' }]);
  assertEquals(answer.finishReason, "tool_calls");
  assertEquals(answer.usage.input_tokens, 10);
  assertEquals(sent[0].url, `${BASE}/responses`);
  assertEquals(sent[0].body.instructions, "be brief");
  assertEquals(sent[0].body.input, [{ role: "user", content: "hi" }]);
  assertEquals(sent[0].body.tools, [
    {
      type: "function",
      name: "read",
      description: "read a file",
      parameters: { type: "object" },
      strict: false,
    },
  ]);
  assertEquals("stream_options" in sent[0].body, false);
});

Deno.test("one JSON response instead of a stream is read as the answer", async () => {
  const { provider } = scripted([() =>
    Response.json({
      object: "response",
      status: "completed",
      output: [
        { id: "rs_1", type: "reasoning", summary: [], encrypted_content: "enc" },
        { id: "msg_1", type: "message", content: [{ type: "output_text", text: "Hello." }] },
      ],
      usage: { input_tokens: 3, output_tokens: 2, total_tokens: 5 },
    })]);
  const answer = await provider.stream(ask, {});
  assertEquals(answer.text, "Hello.");
  assertEquals(answer.finishReason, "stop");
  assertEquals(answer.providerData, {
    // Filed under the Responses API's own origin: a Chat Completions request never carries it.
    origin: responsesOrigin(provider.baseURL),
    fields: {
      reasoning: [{ id: "rs_1", type: "reasoning", summary: [], encrypted_content: "enc" }],
    },
  });
});

Deno.test("an answer cut by the output limit finishes with length", async () => {
  const { provider, sent } = scripted([() =>
    sse([
      { type: "response.output_text.delta", item_id: "msg_1", delta: "Part" },
      {
        type: "response.incomplete",
        response: { status: "incomplete", incomplete_details: { reason: "max_output_tokens" } },
      },
    ])]);
  const answer = await provider.stream({ ...ask, maxOutputTokens: 50 }, {});
  assertEquals([answer.text, answer.finishReason], ["Part", "length"]);
  assertEquals(sent[0].body.max_output_tokens, 50);
});

Deno.test("a failure event is retried, and the text already shown is not repeated", async () => {
  const retries: string[] = [];
  const shown: string[] = [];
  const { provider, sent } = scripted([
    () =>
      sse([
        { type: "response.output_text.delta", item_id: "msg_1", delta: "Hel" },
        {
          type: "response.failed",
          response: {
            status: "failed",
            error: { code: "server_error", message: "The server had an error" },
          },
        },
      ]),
    () =>
      sse([
        { type: "response.output_text.delta", item_id: "msg_2", delta: "Hello." },
        completed(),
      ]),
  ]);
  const answer = await provider.stream(ask, {
    onText: (d) => shown.push(d),
    onRetry: (r) => retries.push(r.reason),
  });
  assertEquals(answer.text, "Hello.");
  assertEquals(shown.join(""), "Hello.");
  assertEquals(sent.length, 2);
  assert(retries.length === 1 && retries[0].includes("mid-stream"), retries.join());
});

Deno.test("a model that refuses the reasoning field is asked again without it, once", async () => {
  const { provider, sent } = scripted([
    () =>
      Response.json({
        error: {
          message: "Unsupported parameter: 'reasoning.summary' is not supported with this model.",
          type: "invalid_request_error",
        },
      }, { status: 400 }),
    () => sse([{ type: "response.output_text.delta", item_id: "m", delta: "ok" }, completed()]),
    () => sse([{ type: "response.output_text.delta", item_id: "m", delta: "again" }, completed()]),
  ]);
  assertEquals((await provider.stream(ask, {})).text, "ok");
  assertEquals((await provider.stream(ask, {})).text, "again");
  assertEquals(sent.map((request) => "reasoning" in request.body), [true, false, false]);
});

Deno.test("reasoning streams to onReasoning and its encrypted items go back, from a new client too", async () => {
  const server = startResponsesServer([
    {
      reasoning: "Look at the file.",
      toolCalls: [{ name: "read", arguments: { file_path: "a" } }],
    },
    { text: "done" },
  ]);
  try {
    const thinking: string[] = [];
    const first = await createResponsesProvider({ baseURL: server.url }).stream(ask, {
      onReasoning: (delta) => thinking.push(delta),
    });
    assertEquals(thinking.join(""), "Look at the file.");
    assertEquals(first.reasoning, "Look at the file.");
    assertEquals(first.usage.cached_input_tokens, 1024);
    // The session stores the answer with its providerData; a resumed session's client has no memory of it.
    const history: ChatMessage[] = [
      ...ask.messages,
      {
        role: "assistant",
        content: null,
        tool_calls: first.toolCalls,
        providerData: first.providerData,
      },
      { role: "tool", tool_call_id: first.toolCalls[0].id, content: "file a" },
    ];
    const second = await createResponsesProvider({ baseURL: server.url }).stream({
      ...ask,
      messages: history,
    }, {});
    assertEquals(second.text, "done");
    assertEquals(server.refusals, []);
    const sentBack = (server.requests[1].input as Record<string, unknown>[]).find((item) =>
      item.type === "reasoning"
    );
    assert(String(sentBack?.encrypted_content).startsWith("gAAAA"));
  } finally {
    await server.close();
  }
});

Deno.test("a server without encrypted reasoning (include refused) is asked again without it", async () => {
  const { provider, sent } = scripted([
    () =>
      Response.json({
        error: { message: "Unknown parameter: 'include'.", type: "invalid_request_error" },
      }, { status: 400 }),
    () => sse([{ type: "response.output_text.delta", item_id: "m", delta: "ok" }, completed()]),
  ]);
  assertEquals((await provider.stream({ ...ask, model: "gpt-oss-20b" }, {})).text, "ok");
  assertEquals(sent.map((request) => "include" in request.body), [true, false]);
  assertEquals(sent.map((request) => "reasoning" in request.body), [false, false]);
});
