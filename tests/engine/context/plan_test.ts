import { assert, assertEquals } from "../../support/assert.ts";
import { contextBudget, fullWindowMessage, planRequest } from "../../../src/engine/context/plan.ts";

Deno.test("the threshold is 80% of the window by default, and never leaves less than the reply room", () => {
  const budget = contextBudget({ context: 10_000 }, { auto: true, threshold: 0.8 }, 1_000);
  assertEquals(budget.threshold, 8_000);
  assertEquals(budget.fits, 9_000);
  assertEquals(
    contextBudget({ context: 10_000 }, { auto: true, threshold: 0.95 }, 3_000).threshold,
    7_000,
  );
  // The model's own output limit is the reply room when the request names none.
  assertEquals(contextBudget({ context: 128_000, output: 16_384 }).fits, 128_000 - 16_384);
  // A reply reservation never takes more than half the window.
  assertEquals(contextBudget({ context: 8_000, output: 100_000 }).reply, 4_000);
});

Deno.test("auto on compacts over the threshold; auto off sends until the request no longer fits, then stops", () => {
  const on = { auto: true, threshold: 0.8 };
  const off = { auto: false, threshold: 0.8 };
  const budget = contextBudget({ context: 10_000 }, on, 1_000);
  assertEquals(planRequest(7_999, budget, on).action, "send");
  assertEquals(planRequest(8_001, budget, on).action, "compact");
  assertEquals(planRequest(8_500, budget, off).action, "send");
  assertEquals(planRequest(9_001, budget, off).action, "stop");
  const message = fullWindowMessage(9_001, budget, false);
  assert(message.includes("(9001 of 10000 tokens"), message);
  assert(message.includes('"compaction": {"auto": false}'), message);
});
