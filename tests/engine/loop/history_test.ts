/**
 * Stored messages become a valid Chat Completions history again, including
 * after a process died between a tool call and its result.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import {
  INTERRUPTED_RESULT,
  type StoredMessage,
  toChatHistory,
} from "../../../src/engine/loop/history.ts";

Deno.test("text, tool calls and results come back in order", () => {
  const stored: StoredMessage[] = [
    { role: "user", parts: [{ type: "text", text: "hi" }] },
    {
      role: "assistant",
      parts: [
        { type: "text", text: "looking" },
        { type: "tool_call", call_id: "c1", name: "read", arguments: '{"file_path":"a"}' },
      ],
    },
    {
      role: "tool",
      parts: [{ type: "tool_result", call_id: "c1", tool: "read", ok: true, output: "A" }],
    },
    { role: "assistant", parts: [{ type: "text", text: "done" }] },
  ];
  assertEquals(toChatHistory(stored), [
    { role: "user", content: "hi" },
    {
      role: "assistant",
      content: "looking",
      tool_calls: [{ id: "c1", name: "read", arguments: '{"file_path":"a"}' }],
    },
    { role: "tool", tool_call_id: "c1", content: "A" },
    { role: "assistant", content: "done" },
  ]);
});

Deno.test("a call without a result (killed mid-tool) gets an interrupted result", () => {
  const stored: StoredMessage[] = [
    { role: "user", parts: [{ type: "text", text: "go" }] },
    {
      role: "assistant",
      parts: [
        { type: "tool_call", call_id: "c1", name: "bash", arguments: "{}" },
        { type: "tool_call", call_id: "c2", name: "read", arguments: "{}" },
      ],
    },
    {
      role: "tool",
      parts: [{ type: "tool_result", call_id: "c2", tool: "read", ok: true, output: "B" }],
    },
    { role: "user", parts: [{ type: "text", text: "again" }] },
  ];
  const history = toChatHistory(stored);
  assertEquals(history.map((message) => message.role), [
    "user",
    "assistant",
    "tool",
    "tool",
    "user",
  ]);
  assertEquals(history[2], { role: "tool", tool_call_id: "c2", content: "B" });
  assertEquals(history[3], { role: "tool", tool_call_id: "c1", content: INTERRUPTED_RESULT });
});

Deno.test("a failed result shows its code, message and hint to the model", () => {
  const history = toChatHistory([
    {
      role: "assistant",
      parts: [{ type: "tool_call", call_id: "c", name: "edit", arguments: "{}" }],
    },
    {
      role: "tool",
      parts: [{
        type: "tool_result",
        call_id: "c",
        tool: "edit",
        ok: false,
        output: "",
        error: { code: "no_match", message: "not found", hint: "read it again" },
      }],
    },
  ]);
  const content = (history[1] as { content: string }).content;
  assertStringIncludes(content, "no_match");
  assertStringIncludes(content, "read it again");
});

Deno.test("an empty answer is left out, so a resumed session stays a valid request", () => {
  const stored: StoredMessage[] = [
    { role: "user", parts: [{ type: "text", text: "write a novel" }] },
    { role: "assistant", parts: [] },
    { role: "user", parts: [{ type: "text", text: "a short one" }] },
  ];
  assertEquals(toChatHistory(stored), [
    { role: "user", content: "write a novel" },
    { role: "user", content: "a short one" },
  ]);
});
