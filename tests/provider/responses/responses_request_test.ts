/**
 * The Responses API body is written from pieces kept per message: a turn
 * serialises only the messages it added, so its cost does not grow with the
 * history, and the body is the same as one written from scratch. A message
 * replaced, edited in place, or whose reasoning became known since is
 * written again.
 */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  type ReasoningItem,
  ResponsesRequestWriter,
} from "../../../src/provider/responses/responses_request.ts";
import type { ChatMessage, ToolSchema } from "../../../src/provider/types.ts";

const tools: ToolSchema[] = [{ name: "read", description: "read a file", parameters: {} }];
const decode = (body: Uint8Array) => JSON.parse(new TextDecoder().decode(body));

function roundTrip(index: number): ChatMessage[] {
  const id = `call_${index}`;
  return [
    {
      role: "assistant",
      content: index % 2 ? `reading ${index}` : null,
      tool_calls: [{ id, name: "read", arguments: `{"file_path":"${index}.txt"}` }],
    },
    { role: "tool", tool_call_id: id, content: `the text of ${index}.txt` },
  ];
}

Deno.test("responses body: a turn writes only its new messages, and the body is the whole history", () => {
  const kept = new Map<string, ReasoningItem[]>();
  const writer = new ResponsesRequestWriter({ reasoningFor: (_message, id) => kept.get(id) });
  const messages: ChatMessage[] = [
    { role: "system", content: "be brief" },
    { role: "user", content: "read them all" },
  ];
  for (let index = 0; index < 50; index++) messages.push(...roundTrip(index));
  const fields = { model: "gpt-5", max_completion_tokens: 512 };
  const first = decode(writer.body(fields, messages, tools));
  assertEquals(writer.serialised, 101); // the system prompt goes as `instructions`
  assertEquals(first.instructions, "be brief");
  assertEquals(first.input.length, 1 + 50 * 2 + 25); // user, calls, outputs, the texts of odd turns
  assertEquals(first.input[1], {
    type: "function_call",
    call_id: "call_0",
    name: "read",
    arguments: '{"file_path":"0.txt"}',
  });
  assertEquals(first.input[3], { role: "assistant", content: "reading 1" });
  assertEquals(first.max_output_tokens, 512);
  assertEquals([first.store, first.stream, first.reasoning], [false, true, { summary: "auto" }]);
  assertEquals(first.tools[0].name, "read");

  messages.push(...roundTrip(50));
  const second = decode(writer.body(fields, messages, tools));
  assertEquals(writer.serialised, 103);
  assertEquals(second.input.slice(0, first.input.length), first.input);
  assertEquals(second.input.at(-1), {
    type: "function_call_output",
    call_id: "call_50",
    output: "the text of 50.txt",
  });
  // The same as a writer with no pieces yet.
  const fresh = new ResponsesRequestWriter({ reasoningFor: (_message, id) => kept.get(id) });
  assertEquals(decode(fresh.body(fields, messages, tools)), second);
});

Deno.test("responses body: a message replaced, edited, or whose reasoning became known is written again", () => {
  const kept = new Map<string, ReasoningItem[]>();
  const writer = new ResponsesRequestWriter({ reasoningFor: (_message, id) => kept.get(id) });
  const messages: ChatMessage[] = [{ role: "user", content: "go" }, ...roundTrip(0)];
  writer.body({ model: "m" }, messages, []);
  assertEquals(writer.serialised, 3);
  // Pruned output: a new object in its place.
  messages[2] = { role: "tool", tool_call_id: "call_0", content: "[pruned]" };
  // Edited in place.
  (messages[0] as { content: string }).content = "go on";
  kept.set("call_0", [{ type: "reasoning", id: "rs_0", summary: [], encrypted_content: "gAAAA0" }]);
  const body = decode(writer.body({ model: "m" }, messages, []));
  assertEquals(writer.serialised, 6);
  assertEquals(body.input.map((item: Record<string, unknown>) => item.type ?? item.role), [
    "user",
    "reasoning",
    "function_call",
    "function_call_output",
  ]);
  assertEquals([body.input[0].content, body.input[3].output], ["go on", "[pruned]"]);
});

Deno.test("responses body: written again without a refused field, which that model is not asked for again", () => {
  const writer = new ResponsesRequestWriter({ reasoningFor: () => undefined });
  const messages: ChatMessage[] = [{ role: "user", content: "hi" }];
  const body = writer.body({ model: "gpt-5" }, messages, []);
  const again = writer.without(body, "include")!;
  assertEquals("include" in decode(body), true);
  assertEquals("include" in decode(again), false);
  assertEquals(decode(again).input, decode(body).input);
  assertEquals(writer.without(again, "include"), undefined);
  assertEquals("include" in decode(writer.body({ model: "gpt-5" }, messages, [])), false);
  assertEquals("include" in decode(writer.body({ model: "gpt-4.1" }, messages, [])), true);
  assertEquals(writer.without(new Uint8Array(2), "reasoning"), undefined);
});
