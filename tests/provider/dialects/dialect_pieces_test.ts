/**
 * The pieces each dialect is built from, one by one: reading reasoning
 * under either name, joining OpenRouter's reasoning blocks, the usage
 * servers report, Mistral's ids, and what goes back to which server.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { mapUsage, StreamAssembler } from "../../../src/provider/chat/stream_assembler.ts";
import { mergeReasoningDetails } from "../../../src/provider/dialects/reasoning_details.ts";
import { mistralCallId } from "../../../src/provider/dialects/mistral.ts";
import { dialectFor, originOf } from "../../../src/provider/dialects/dialect.ts";
import { RequestBodyWriter, toWireMessage } from "../../../src/provider/chat/request_body.ts";
import { explainErrorBody } from "../../../src/provider/error_body.ts";
import { withCost } from "../../../src/provider/cost.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const delta = (fields: Record<string, unknown>) => ({ choices: [{ index: 0, delta: fields }] });

Deno.test("reasoning sent under both names at once (a server mid-rename) is read once", () => {
  const assembler = new StreamAssembler(() => "id");
  assembler.add(delta({ reasoning: "Think", reasoning_content: "Think" }));
  assembler.add(delta({ reasoning_content: " more." }));
  assembler.add(delta({ content: "Answer." }));
  assertEquals(assembler.reasoning, "Think more.");
  assertEquals(assembler.text, "Answer.");
  assertEquals(assembler.providerData("http://x/v1")?.reasoningField, "reasoning_content");
});

Deno.test("an answer with nothing a server wants back carries no provider data", () => {
  const assembler = new StreamAssembler(() => "id");
  assembler.add(delta({ content: "Plain." }));
  assertEquals(assembler.providerData("http://x/v1"), undefined);
});

Deno.test("OpenRouter's reasoning pieces join into whole blocks by index, other fields kept", () => {
  const blocks = mergeReasoningDetails([
    { type: "reasoning.text", text: "Let me ", index: 0, format: "f" },
    { type: "reasoning.text", text: "think.", index: 0 },
    { type: "reasoning.text", signature: "sig", index: 0 },
    { type: "reasoning.encrypted", data: "abc", index: 1, id: "tool_1" },
  ]);
  assertEquals(blocks, [
    { type: "reasoning.text", text: "Let me think.", index: 0, format: "f", signature: "sig" },
    { type: "reasoning.encrypted", data: "abc", index: 1, id: "tool_1" },
  ]);
});

Deno.test("usage as servers report it: DeepSeek's cache hits, reasoning tokens, OpenRouter's cost", () => {
  assertEquals(
    mapUsage({
      prompt_tokens: 100,
      completion_tokens: 30,
      prompt_cache_hit_tokens: 80,
      completion_tokens_details: { reasoning_tokens: 12 },
    }),
    {
      input_tokens: 100,
      output_tokens: 30,
      total_tokens: 130,
      cached_input_tokens: 80,
      reasoning_tokens: 12,
    },
  );
  const routed = mapUsage({ prompt_tokens: 10, completion_tokens: 5, cost: 0.002 });
  assertEquals(routed.cost_usd, 0.002);
  // What was billed beats the table.
  assertEquals(withCost(routed, { input: 100, output: 100 }).cost_usd, 0.002);
  const odd = mapUsage({ prompt_tokens: 1, completion_tokens: 1, cost: "free" as never });
  assertEquals(odd.cost_usd, undefined);
});

Deno.test("Mistral ids: valid ones kept, others mapped to 9 letters or digits, the same each time", () => {
  assertEquals(mistralCallId("Ab3dE6gH9"), "Ab3dE6gH9");
  const mapped = mistralCallId("call_0fypS1hVX");
  assert(/^[a-zA-Z0-9]{9}$/.test(mapped), mapped);
  assertEquals(mistralCallId("call_0fypS1hVX"), mapped);
  assert(mistralCallId("call_0fypS1hVY") !== mapped);
});

Deno.test("an endpoint's origin keeps no credentials or query", () => {
  assertEquals(
    originOf("https://user:sk-secret@proxy.example/v1/?key=abc"),
    "https://proxy.example/v1",
  );
  assertEquals(originOf("http://127.0.0.1:8080/v1"), "http://127.0.0.1:8080/v1");
});

Deno.test("the dialect: the configured one, else by host", () => {
  assertEquals(dialectFor("https://api.mistral.ai/v1"), "mistral");
  assertEquals(dialectFor("https://openrouter.ai/api/v1"), "openrouter");
  assertEquals(dialectFor("https://example.com/v1"), "standard");
  assertEquals(dialectFor("http://127.0.0.1:8000/v1", "mistral"), "mistral");
  assertEquals(dialectFor("https://api.mistral.ai/v1", "standard"), "standard");
});

const fromRouter: ChatMessage = {
  role: "assistant",
  content: null,
  tool_calls: [{ id: "call_1", name: "read", arguments: "{}" }],
  reasoning: "Thinking.",
  providerData: {
    origin: "https://openrouter.ai/api/v1",
    reasoningField: "reasoning",
    fields: { reasoning_details: [{ type: "reasoning.text", text: "Thinking." }] },
    calls: { call_1: { extra_content: { google: { thought_signature: "s" } } } },
  },
};

Deno.test("a server's own fields go back to it, and to no other", () => {
  const same = toWireMessage(fromRouter, { origin: "https://openrouter.ai/api/v1" });
  assertEquals(same.reasoning, "Thinking.");
  assertEquals(same.reasoning_details, [{ type: "reasoning.text", text: "Thinking." }]);
  assertEquals((same.tool_calls as Record<string, unknown>[])[0].extra_content, {
    google: { thought_signature: "s" },
  });
  const other = toWireMessage(fromRouter, { origin: "https://api.deepseek.com" });
  assertEquals(other, {
    role: "assistant",
    content: null,
    tool_calls: [{ id: "call_1", type: "function", function: { name: "read", arguments: "{}" } }],
  });
});

Deno.test("Mistral's body: ids mapped in calls and results, an assistant turn between tool and user", async () => {
  const writer = new RequestBodyWriter({ origin: "https://api.mistral.ai/v1", dialect: "mistral" });
  const messages: ChatMessage[] = [
    { role: "user", content: "go" },
    fromRouter,
    { role: "tool", tool_call_id: "call_1", content: "result" },
    { role: "user", content: "next" },
  ];
  const body = JSON.parse(await writer.body({ model: "m" }, messages, []).text());
  const roles = body.messages.map((message: { role: string }) => message.role);
  assertEquals(roles, ["user", "assistant", "tool", "assistant", "user"]);
  const id = body.messages[1].tool_calls[0].id;
  assert(/^[a-zA-Z0-9]{9}$/.test(id));
  assertEquals(body.messages[2].tool_call_id, id);
  assertEquals(messages[2], { role: "tool", tool_call_id: "call_1", content: "result" }, "kept");
});

Deno.test("Google's array-shaped error body is read for its message", () => {
  const text = JSON.stringify([{
    error: { code: 400, message: "Function call is missing a thought_signature", status: "X" },
  }]);
  assertEquals(explainErrorBody(text), "Function call is missing a thought_signature");
});

Deno.test("a tool call's own fields, whatever their name, are kept under its id; the standard ones are not", () => {
  const assembler = new StreamAssembler(() => "made_id");
  assembler.add(delta({
    tool_calls: [{
      index: 0,
      type: "function",
      function: { name: "read", arguments: "{}" },
      extra_content: { google: { thought_signature: "sig" } },
      provider_specific_fields: { note: 1 },
    }],
  }));
  const calls = assembler.toolCalls();
  assertEquals(calls, [{ id: "made_id", name: "read", arguments: "{}" }]);
  assertEquals(assembler.providerData("o")?.calls, {
    made_id: {
      extra_content: { google: { thought_signature: "sig" } },
      provider_specific_fields: { note: 1 },
    },
  });
});
