import { assert, assertEquals } from "../../support/assert.ts";
import {
  contextBudget,
  fitReplyToOpening,
  fullWindowMessage,
  MIN_REPLY_TOKENS,
  planRequest,
  replyLimitFor,
} from "../../../src/engine/context/plan.ts";

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

Deno.test("in a small window the reply reserve shrinks to half of what the opening request leaves", () => {
  const small = contextBudget({ context: 8_192, output: 4_096 });
  assertEquals(small.reply, 4_096);
  // An opening request of 3.5k: 4096 + 3500 leaves 596 for the work, so the reserve gives way.
  const fitted = fitReplyToOpening(small, 3_500);
  assertEquals(fitted.reply, Math.floor((8_192 - 3_500) / 2));
  assertEquals(fitted.fits, 8_192 - fitted.reply);
  assert(fitted.threshold > 3_500 && fitted.threshold <= fitted.fits);
  assertEquals(planRequest(3_500, fitted).action, "send");
  // Never below the floor, however large the opening request.
  assertEquals(fitReplyToOpening(small, 7_900).reply, MIN_REPLY_TOKENS);
  // A large window keeps its reserve.
  const large = contextBudget({ context: 128_000, output: 16_384 });
  assertEquals(fitReplyToOpening(large, 9_000), large);
});

Deno.test("the output limit sent is what the window leaves, never below the reserve, none when none is asked", () => {
  const budget = fitReplyToOpening(contextBudget({ context: 8_192, output: 4_096 }), 3_500);
  assertEquals(replyLimitFor(3_500, budget, 4_096), 4_096);
  assertEquals(replyLimitFor(5_000, budget, 4_096), 8_192 - 5_000);
  assertEquals(replyLimitFor(budget.fits, budget, 4_096), budget.reply);
  assertEquals(replyLimitFor(3_500, budget, undefined), undefined);
});
