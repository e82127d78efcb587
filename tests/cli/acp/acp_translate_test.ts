/**
 * What `skiff acp` sends and takes, without a process: events as updates
 * (reasoning as thought chunks, an edit's hunks as diffs), the editor's
 * answer to a permission question (only an offered yes runs a call), the
 * prompt's attachments, and a stored history replayed.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeEvent } from "../../../src/contracts/events.ts";
import { diffsOf, UpdateTranslator } from "../../../src/cli/acp/acp_updates.ts";
import { approvalAnswer, permissionQuestion } from "../../../src/cli/acp/acp_session.ts";
import { promptText } from "../../../src/cli/acp/acp_prompt.ts";
import { replayUpdates } from "../../../src/cli/acp/acp_replay.ts";
import type { ApprovalRequest } from "../../../src/engine/types.ts";

Deno.test("acp updates: reasoning streams as thought chunks, the answer as message chunks", () => {
  const translator = new UpdateTranslator("/work");
  assertEquals(translator.translate(makeEvent("reasoning.delta", "s", { turn: 1, text: "hm" })), [
    { sessionUpdate: "agent_thought_chunk", content: { type: "text", text: "hm" } },
  ]);
  assertEquals(translator.translate(makeEvent("message.delta", "s", { turn: 1, text: "hi" })), [
    { sessionUpdate: "agent_message_chunk", content: { type: "text", text: "hi" } },
  ]);
  assertEquals(translator.translate(makeEvent("turn.started", "s", { turn: 1 })), []);
});

Deno.test("acp updates: an edit's hunks become diffs of the file, old and new lines apart", () => {
  const unified = [
    "--- a.ts",
    "+++ a.ts",
    "@@ -1,3 +1,3 @@",
    " keep",
    "-old line",
    "+new line",
    " tail",
    "\\ No newline at end of file",
    "@@ -10,1 +10,2 @@",
    " ten",
    "+eleven",
  ].join("\n");
  assertEquals(diffsOf(unified, "/work/a.ts"), [
    {
      type: "diff",
      path: "/work/a.ts",
      oldText: "keep\nold line\ntail\n",
      newText: "keep\nnew line\ntail\n",
    },
    { type: "diff", path: "/work/a.ts", oldText: "ten\n", newText: "ten\neleven\n" },
  ]);
  const translator = new UpdateTranslator("/work");
  translator.translate(
    makeEvent("tool.started", "s", {
      turn: 1,
      call_id: "c1",
      tool: "edit",
      input: { file_path: "a.ts" },
    }),
  );
  const [ended] = translator.translate(makeEvent("tool.completed", "s", {
    turn: 1,
    call_id: "c1",
    tool: "edit",
    ok: true,
    title: "a.ts",
    output: "Edited a.ts",
    metadata: { diff: unified },
    duration_ms: 1,
  }));
  assertEquals(ended.sessionUpdate, "tool_call_update");
  if (ended.sessionUpdate !== "tool_call_update") return;
  assertEquals(ended.content?.map((content) => content.type), ["diff", "diff", "content"]);
});

/** An ask for `touch x`, with or without the rules an "always" would add. */
function askFor(always: boolean): ApprovalRequest {
  return {
    tool: "bash",
    callId: "c1",
    access: { key: "bash", patterns: ["touch x"] },
    decision: { action: "ask", reason: "bash asks by default", checks: [] },
    always: always ? [{ key: "bash", patterns: ["touch *"] }] : [],
  };
}

Deno.test("acp permission: only an offered yes runs a call; cancelled stops the turn", () => {
  const question = permissionQuestion("s", askFor(true));
  assertEquals(question.toolCall.toolCallId, "c1");
  assertStringIncludes(question.toolCall.title ?? "", "touch x");
  const id = (kind: string) => question.options.find((option) => option.kind === kind)!.optionId;
  assertEquals(
    approvalAnswer({ outcome: "selected", optionId: id("allow_once") }, question.options),
    "once",
  );
  assertEquals(
    approvalAnswer({ outcome: "selected", optionId: id("allow_always") }, question.options),
    "always",
  );
  assertEquals(
    approvalAnswer({ outcome: "selected", optionId: id("reject_once") }, question.options),
    "deny",
  );
  // An id the question never offered is a no, whatever it is called.
  assertEquals(
    approvalAnswer({ outcome: "selected", optionId: "allow" }, question.options),
    "deny",
  );
  assertEquals(approvalAnswer({ outcome: "cancelled" }, question.options), "interrupt");
  // A call no "always" rule could name (a destructive command) is offered no "always".
  const once = permissionQuestion("s", askFor(false));
  assertEquals(once.options.map((option) => option.kind), ["allow_once", "reject_once"]);
  assertEquals(
    approvalAnswer({ outcome: "selected", optionId: id("allow_always") }, once.options),
    "deny",
  );
});

Deno.test("acp prompt: a linked file is read through the session's tool, an embedded one taken as sent", async () => {
  const reads: string[] = [];
  const { prompt, title } = await promptText([
    { type: "text", text: "explain these" },
    { type: "resource_link", uri: "file:///work/a%20b.ts", name: "a b.ts" },
    { type: "resource_link", uri: "file:///etc/shadow", name: "shadow" },
    { type: "resource_link", uri: "https://example.com/x", name: "x" },
    { type: "resource", resource: { uri: "file:///work/unsaved.ts", text: "let unsaved = 1;" } },
  ], (file) => {
    reads.push(file);
    return Promise.resolve(
      file === "/etc/shadow"
        ? { ok: false, why: "read outside the workspace asks" }
        : { ok: true, text: "const a = 1;" },
    );
  });
  assertEquals(title, "explain these");
  assertEquals(reads, ["/work/a b.ts", "/etc/shadow"]);
  assertStringIncludes(prompt, "The user attached /work/a b.ts:\n```\nconst a = 1;\n```");
  assertStringIncludes(
    prompt,
    "/etc/shadow, which could not be read: read outside the workspace asks",
  );
  assertStringIncludes(prompt, "linked https://example.com/x (x); it was not read");
  assertStringIncludes(prompt, "sent the text of /work/unsaved.ts:\n```\nlet unsaved = 1;\n```");
});

Deno.test("acp replay: a stored history as the updates that showed it", () => {
  const updates = replayUpdates([
    { role: "user", parts: [{ type: "text", text: "fix it" }] },
    {
      role: "assistant",
      parts: [
        { type: "reasoning", text: "look first" },
        { type: "tool_call", call_id: "c1", name: "read", arguments: '{"file_path":"a.ts"}' },
      ],
    },
    {
      role: "tool",
      parts: [{ type: "tool_result", call_id: "c1", tool: "read", ok: true, output: "a" }],
    },
    { role: "assistant", parts: [{ type: "text", text: "fixed" }] },
  ], "/work");
  assertEquals(updates.map((update) => update.sessionUpdate), [
    "user_message_chunk",
    "agent_thought_chunk",
    "tool_call",
    "tool_call_update",
    "agent_message_chunk",
  ]);
  const call = updates[2];
  if (call.sessionUpdate !== "tool_call") throw new Error("not a tool call");
  assertEquals([call.kind, call.locations], ["read", [{ path: "/work/a.ts" }]]);
});
