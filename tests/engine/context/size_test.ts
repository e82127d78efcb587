import { assert, assertEquals } from "../../support/assert.ts";
import {
  CODE_CHARS_PER_TOKEN,
  ContextMeter,
  defaultCharsPerToken,
  PROSE_CHARS_PER_TOKEN,
} from "../../../src/engine/context/size.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const prose = "The parser reads one line at a time and reports the first error it meets. ";
const code = 'function f(a: number): string { return JSON.stringify({ "a": a, b: [1, 2] }); }\n';

Deno.test("unmeasured: prose counts 3.5 characters a token, JSON and code 2.5", () => {
  assertEquals(defaultCharsPerToken(prose.repeat(10)), PROSE_CHARS_PER_TOKEN);
  assertEquals(defaultCharsPerToken(code.repeat(10)), CODE_CHARS_PER_TOKEN);
  const meter = new ContextMeter();
  const text = prose.repeat(100);
  assertEquals(
    meter.estimateMessage({ role: "user", content: text }),
    Math.ceil(text.length / 3.5) + 4,
  );
});

Deno.test("the endpoint's count stands for what it has seen; only what was added since is estimated", () => {
  const meter = new ContextMeter();
  const sent: ChatMessage[] = [
    { role: "system", content: "s".repeat(400) },
    { role: "user", content: prose.repeat(20) },
  ];
  meter.observe(sent, 1_000);
  const added: ChatMessage = { role: "tool", tool_call_id: "c1", content: code.repeat(40) };
  const history = [...sent, { role: "assistant", content: "ok" } as ChatMessage, added];
  const expected = 1_000 + meter.estimateMessage(history[2]) + meter.estimateMessage(added);
  assertEquals(meter.estimate(history), expected);
  // The ratio observed (characters / counted tokens) is used from then on.
  assert(meter.charsPerToken! > 1.5 && meter.charsPerToken! < 2, String(meter.charsPerToken));
});

Deno.test("after the history is rewritten the old count no longer applies, and a refusal makes the estimate larger", () => {
  const meter = new ContextMeter();
  const history: ChatMessage[] = [{ role: "user", content: prose.repeat(40) }];
  meter.observe(history, 5);
  // 5 tokens for 3000 characters is no tokenizer: the ratio is not learnt from it.
  assertEquals(meter.charsPerToken, undefined);
  assertEquals(meter.estimate(history), 5);
  meter.invalidate();
  const estimated = meter.estimate(history);
  assert(estimated > 700, String(estimated));
  meter.distrust();
  assert(meter.estimate(history) > estimated);
});
