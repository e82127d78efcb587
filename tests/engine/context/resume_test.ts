/**
 * A resumed session starts from the compacted state: the compactions the
 * loop recorded in the store, replayed by toChatHistory, give back exactly
 * the history the loop was sending, while the store still holds every
 * message whole. A record that cannot be replayed safely is not replayed.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { runLoop } from "../../../src/engine/loop/loop.ts";
import { type StoredMessage, toChatHistory } from "../../../src/engine/loop/history.ts";
import type { ChatMessage, ChatProvider, ChatResponse } from "../../../src/provider/types.ts";
import { SUMMARY_PROMPT } from "../../../src/engine/context/summary.ts";
import { PRUNED_MARK } from "../../../src/engine/context/prune.ts";
import { openStore } from "../../../src/store/store.ts";
import { storeRecorder } from "../../../src/engine/recorder.ts";
import { fakeReadTool } from "../../support/read_session.ts";
import type { ToolContext } from "../../../src/tools/tool.ts";

const TASK = "Make every parser error name its line; keep the public API.";

/** Reads a file a turn for `turns` turns; answers a handoff request with a short note. */
function model(turns: number, sent: ChatMessage[][]): ChatProvider {
  let step = 0;
  return {
    baseURL: "http://fake",
    stream(request): Promise<ChatResponse> {
      const usage = { input_tokens: 0, output_tokens: 10, total_tokens: 10 };
      if (request.messages[0].content === SUMMARY_PROMPT) {
        const text = "## Task\n> " + TASK + "\n## Next steps\n- read the next file";
        return Promise.resolve({ text, toolCalls: [], finishReason: "stop", usage });
      }
      sent.push(structuredClone(request.messages));
      step++;
      if (step > turns) {
        return Promise.resolve({ text: "All done.", toolCalls: [], finishReason: "stop", usage });
      }
      return Promise.resolve({
        text: `Reading file ${step} to see how it reports errors. `.repeat(40),
        toolCalls: [{ id: `c${step}`, name: "read", arguments: `{"path":"f${step}.ts"}` }],
        finishReason: "tool_calls",
        usage,
      });
    },
  };
}

const read = fakeReadTool(12_000);

Deno.test("resuming replays the recorded compactions: the history is the one the loop was sending, the store keeps everything", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-resume-" });
  const store = openStore(dataDir);
  try {
    const session = store.createSession({ workspace: dataDir, model: "m", agent: "build" });
    const sent: ChatMessage[][] = [];
    const kinds: string[] = [];
    const outcome = await runLoop({
      provider: model(30, sent),
      tools: [read],
      schemas: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
      gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
      recorder: storeRecorder(store, session.id),
      emit: (type, body) => {
        if (type === "context.compacted") kinds.push((body as { kind: string }).kind);
      },
      context: () => ({}) as ToolContext,
      parseInput: (_tool, raw) => JSON.parse(raw),
      truncate: (output) => Promise.resolve(output),
    }, {
      model: "m",
      systemPrompt: "You are a coding agent.",
      history: [],
      prompt: TASK,
      maxOutputTokens: 1_024,
      modelLimits: { context: 16_384 },
      signal: new AbortController().signal,
    });
    assertEquals(outcome.kind, "completed");
    assert(kinds.includes("prune") && kinds.includes("summary"), kinds.join(","));

    const stored = store.loadHistory(session.id) as StoredMessage[];
    const resumed = toChatHistory(stored);
    // The last request (system prompt left out) and the answer it got.
    assertEquals(resumed, [...sent.at(-1)!.slice(1), { role: "assistant", content: "All done." }]);
    assert(resumed.some((message) => message.content?.startsWith("[Handoff summary")));
    assert(!resumed.some((message) => message.content?.startsWith("Reading file 1 ")));

    // The store still has every message whole: each output, each step's words.
    const outputs = stored.flatMap((message) =>
      message.parts.flatMap((part) => part.type === "tool_result" ? [part.output] : [])
    );
    assertEquals(outputs.length, 30);
    assert(outputs.every((output) => !output.startsWith(PRUNED_MARK)));
    assert(
      stored.some((message) =>
        message.parts.some((part) =>
          part.type === "text" && part.text.startsWith("Reading file 1 ")
        )
      ),
    );
  } finally {
    store.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});

const call = (id: string): StoredMessage => ({
  id: `msg_${id}`,
  role: "assistant",
  parts: [{ type: "tool_call", call_id: id, name: "read", arguments: "{}" }],
});
const result = (id: string, output: string): StoredMessage => ({
  id: `msg_${id}_result`,
  role: "tool",
  parts: [{ type: "tool_result", call_id: id, tool: "read", ok: true, output }],
});

Deno.test("a pruning record replaces the bodies it names; a summary whose kept message is unknown is not replayed", () => {
  const stored: StoredMessage[] = [
    { id: "msg_u", role: "user", parts: [{ type: "text", text: TASK }] },
    call("c1"),
    result("c1", "first output"),
    call("c2"),
    result("c2", "second output"),
    {
      id: "msg_k1",
      role: "compaction",
      parts: [{
        type: "compaction",
        kind: "prune",
        trigger: "threshold",
        tokens_before: 100,
        tokens_after: 50,
        pruned: [{ call_id: "c1", note: "[output pruned to save context: read]" }],
      }],
    },
    {
      id: "msg_k2",
      role: "compaction",
      parts: [{
        type: "compaction",
        kind: "summary",
        trigger: "threshold",
        tokens_before: 50,
        tokens_after: 20,
        pruned: [],
        handoff: "[Handoff summary …]",
        kept_from: "msg_gone",
        replaced: 3,
      }],
    },
  ];
  const history = toChatHistory(stored);
  assertEquals(history.length, 5);
  assertEquals(history[2], {
    role: "tool",
    tool_call_id: "c1",
    content: "[output pruned to save context: read]",
  });
  assertEquals(history[4].content, "second output");

  // The same summary keeping from the second call: the handoff, then that call on.
  const kept = structuredClone(stored);
  (kept[6].parts[0] as { kept_from: string }).kept_from = "msg_c2";
  assertEquals(toChatHistory(kept), [
    { role: "user", content: "[Handoff summary …]" },
    { role: "assistant", content: null, tool_calls: [{ id: "c2", name: "read", arguments: "{}" }] },
    { role: "tool", tool_call_id: "c2", content: "second output" },
  ]);
});

Deno.test("a compaction cut off by a killed process (its message stored, its part not) changes nothing on resume", () => {
  const stored: StoredMessage[] = [
    { id: "msg_u", role: "user", parts: [{ type: "text", text: TASK }] },
    call("c1"),
    result("c1", "first output"),
    { id: "msg_k", role: "compaction", parts: [] },
    { id: "msg_a", role: "assistant", parts: [{ type: "text", text: "Done." }] },
  ];
  assertEquals(toChatHistory(stored), [
    { role: "user", content: TASK },
    { role: "assistant", content: null, tool_calls: [{ id: "c1", name: "read", arguments: "{}" }] },
    { role: "tool", tool_call_id: "c1", content: "first output" },
    { role: "assistant", content: "Done." },
  ]);
});
