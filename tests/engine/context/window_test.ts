import { assertEquals } from "../../support/assert.ts";
import { resolveModelLimits } from "../../../src/provider/model_limits.ts";

Deno.test("the known-model table gives the window compaction works against; config wins", () => {
  assertEquals(resolveModelLimits("gpt-4").context, 8_192);
  assertEquals(resolveModelLimits("gpt-4-turbo").output, 4_096);
  assertEquals(resolveModelLimits("anthropic/claude-3-5-sonnet-20241022").context, 200_000);
  assertEquals(resolveModelLimits("o1-mini").output, 65_536);
  // Open-weight families: the trained window, and no output guess (the server picks it).
  assertEquals(resolveModelLimits("qwen2.5-coder:7b"), { context: 32_768, source: "builtin" });
  assertEquals(
    resolveModelLimits("qwen2.5-coder:7b", { "qwen2.5-coder:7b": { context: 8_192 } }).context,
    8_192,
  );
  assertEquals(resolveModelLimits("my-own-model").source, "default");
});
