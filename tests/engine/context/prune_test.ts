import { assert, assertEquals } from "../../support/assert.ts";
import { PRUNED_MARK, prunedNote, pruneToolOutputs } from "../../../src/engine/context/prune.ts";
import { ContextMeter } from "../../../src/engine/context/size.ts";
import { truncationNotice } from "../../../src/tools/truncate.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const output = (n: number) => `result ${n} first line\n${"x".repeat(8_000)}`;

/** system, user, then `turns` × (assistant with a call, its 8 KB result). */
function conversation(turns: number): ChatMessage[] {
  const history: ChatMessage[] = [
    { role: "system", content: "s" },
    { role: "user", content: "do the task" },
  ];
  for (let n = 1; n <= turns; n++) {
    history.push({
      role: "assistant",
      content: null,
      tool_calls: [{ id: `c${n}`, name: "bash", arguments: `{"command":"make ${n}"}` }],
    });
    history.push({ role: "tool", tool_call_id: `c${n}`, content: output(n) });
  }
  return history;
}

Deno.test("oldest outputs go first, the newest stay, the calls stay, and it stops once under the goal", () => {
  const history = conversation(5);
  const meter = new ContextMeter();
  const before = meter.estimate(history);
  const result = pruneToolOutputs(history, meter, { goal: before - 4_000 });
  assertEquals(result.pruned, 2);
  const tools = history.filter((message) => message.role === "tool");
  assertEquals(tools.map((message) => message.content.startsWith(PRUNED_MARK)), [
    true,
    true,
    false,
    false,
    false,
  ]);
  assertEquals(history.filter((message) => message.role === "assistant").length, 5);
  assert(result.tokensAfter <= before - 4_000 && result.tokensAfter === meter.estimate(history));
});

Deno.test("the result the model has not answered yet is kept, unless pruning must go that far", () => {
  const history = conversation(2);
  const meter = new ContextMeter();
  pruneToolOutputs(history, meter, { goal: 0 });
  assert(history[3].content!.startsWith(PRUNED_MARK));
  assertEquals(history[5].content, output(2));
  pruneToolOutputs(history, meter, { goal: 0, includeUnread: true });
  assert(history[5].content!.startsWith(PRUNED_MARK));
});

Deno.test("the note says what the output was and where to read it again, or that it was not kept", () => {
  const spilled = `head\n${truncationNotice(50_000, "/data/tool-output/ses_1/c1.txt")}\ntail`;
  const note = prunedNote("bash", spilled);
  assert(note.includes(`bash returned ${spilled.length} characters`), note);
  assert(note.includes('first line: "head"'), note);
  assert(note.includes("full output: /data/tool-output/ses_1/c1.txt"), note);
  const kept = prunedNote("read", output(1));
  assert(kept.includes("not kept where you can read it; run the call again"), kept);
});
