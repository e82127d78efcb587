/** Which output limit a request carries, for configured, known and unknown models. */
import { deepStrictEqual as assertEquals } from "node:assert/strict";
import {
  DEFAULT_CONTEXT_TOKENS,
  outputLimitField,
  pickMaxOutputTokens,
  resolveModelLimits,
} from "../../src/provider/model_limits.ts";

Deno.test("config limits win, also for a vendor-prefixed model name", () => {
  const models = { "qwen2.5-coder": { context: 32_768, output: 4_096 } };
  assertEquals(resolveModelLimits("qwen2.5-coder", models), {
    context: 32_768,
    output: 4_096,
    source: "config",
  });
  assertEquals(resolveModelLimits("local/qwen2.5-coder", models).output, 4_096);
  // A config entry naming only the context keeps the known output limit.
  assertEquals(resolveModelLimits("gpt-4o", { "gpt-4o": { context: 64_000 } }), {
    context: 64_000,
    output: 16_384,
    source: "config",
  });
});

Deno.test("known families have limits; unknown models leave the output to the server", () => {
  assertEquals(resolveModelLimits("gpt-4o-mini-2024-07-18").output, 16_384);
  assertEquals(resolveModelLimits("openai/o4-mini").source, "builtin");
  const unknown = resolveModelLimits("my-finetune");
  assertEquals(unknown, { context: DEFAULT_CONTEXT_TOKENS, source: "default" });
  assertEquals(pickMaxOutputTokens(unknown, 5_000), undefined);
});

Deno.test("the output limit shrinks so prompt and answer fit the context", () => {
  const limits = resolveModelLimits("m", { m: { context: 32_000, output: 8_000 } });
  assertEquals(pickMaxOutputTokens(limits), 8_000);
  assertEquals(pickMaxOutputTokens(limits, 10_000), 8_000);
  assertEquals(pickMaxOutputTokens(limits, 28_000), 4_000);
  assertEquals(pickMaxOutputTokens(limits, 40_000), 1_024, "never below a useful floor");
});

Deno.test("reasoning models get max_completion_tokens, others max_tokens", () => {
  assertEquals(outputLimitField("o3"), "max_completion_tokens");
  assertEquals(outputLimitField("gpt-5-mini"), "max_completion_tokens");
  assertEquals(outputLimitField("gpt-4o"), "max_tokens");
  assertEquals(outputLimitField("llama3.1:8b"), "max_tokens");
});

Deno.test("the gpt-5 chat variants get their own, smaller output limit", () => {
  for (const model of ["gpt-5-chat-latest", "openai/gpt-5.1-chat-latest"]) {
    const limits = resolveModelLimits(model);
    assertEquals([limits.context, limits.output], [128_000, 16_384], model);
  }
  assertEquals(resolveModelLimits("gpt-5-mini").output, 128_000);
});
