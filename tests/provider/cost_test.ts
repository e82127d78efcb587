import { assertEquals } from "../support/assert.ts";
import { costOf, formatUsd, priceFor, withCost } from "../../src/provider/cost.ts";
import { mapUsage } from "../../src/provider/chat/stream_assembler.ts";
import { addUsage, emptyUsage } from "../../src/contracts/events.ts";

Deno.test("cost: the config's price wins over the known table", () => {
  assertEquals(priceFor("gpt-4o")?.source, "table");
  const configured = priceFor("gpt-4o", { "gpt-4o": { cost: { input: 1, output: 2 } } });
  assertEquals(configured, { price: { input: 1, output: 2 }, source: "config" });
});

Deno.test("cost: a model in neither has no price, and its usage gets no cost", () => {
  assertEquals(priceFor("my-local-model"), undefined);
  assertEquals(priceFor("gpt-4o-2024-05-13"), undefined); // a dated snapshot is not assumed
  assertEquals(priceFor("constructor"), undefined); // no inherited object keys
  const usage = { input_tokens: 100, output_tokens: 10, total_tokens: 110 };
  assertEquals(withCost(usage, priceFor("my-local-model")?.price), usage);
});

Deno.test("cost: cached prompt tokens are billed at the cached price, the rest at input", () => {
  const price = { input: 2, cachedInput: 0.5, output: 8 };
  const usage = {
    input_tokens: 1_000_000,
    cached_input_tokens: 400_000,
    output_tokens: 100_000,
    total_tokens: 1_100_000,
  };
  // 600k × $2 + 400k × $0.5 + 100k × $8 = 1.2 + 0.2 + 0.8
  assertEquals(costOf(usage, price), 2.2);
  // Without a cached price, cached tokens cost the input price.
  assertEquals(costOf(usage, { input: 2, output: 8 }), 2.8);
});

Deno.test("cost: usage reads OpenAI's cached_tokens; absent stays absent", () => {
  assertEquals(
    mapUsage({
      prompt_tokens: 50,
      completion_tokens: 5,
      prompt_tokens_details: { cached_tokens: 20 },
    }),
    { input_tokens: 50, output_tokens: 5, total_tokens: 55, cached_input_tokens: 20 },
  );
  assertEquals(mapUsage({ prompt_tokens: 50, completion_tokens: 5 }), {
    input_tokens: 50,
    output_tokens: 5,
    total_tokens: 55,
  });
});

Deno.test("cost: addUsage sums cached tokens and cost once they are reported", () => {
  const total = emptyUsage();
  addUsage(total, { input_tokens: 10, output_tokens: 1, total_tokens: 11 });
  assertEquals("cost_usd" in total, false);
  addUsage(total, {
    input_tokens: 10,
    output_tokens: 1,
    total_tokens: 11,
    cached_input_tokens: 4,
    cost_usd: 0.5,
  });
  addUsage(total, { input_tokens: 0, output_tokens: 0, total_tokens: 0, cost_usd: 0.25 });
  assertEquals(total, {
    input_tokens: 20,
    output_tokens: 2,
    total_tokens: 22,
    cached_input_tokens: 4,
    cost_usd: 0.75,
  });
});

Deno.test("cost: formatUsd shows small and large figures readably", () => {
  assertEquals(formatUsd(0), "$0");
  assertEquals(formatUsd(0.0123), "$0.0123");
  assertEquals(formatUsd(0.1), "$0.1");
  assertEquals(formatUsd(12.345), "$12.35");
  assertEquals(formatUsd(0.00001), "<$0.0001");
});
