/**
 * The harness layer of failure attribution, end to end through `skiff run`
 * against the mock. The trigger is real, not injected into skiff: an endpoint
 * that reports `usage.prompt_tokens` as an empty object instead of a number. skiff
 * takes the count as given and its store refuses to record it ("cannot be
 * bound to SQLite parameter"), which skiff does not handle: an internal error,
 * its own fault, so the run ends attributed `{layer: "harness", reason:
 * "internal_error"}`, and `skiff sessions stats` counts it there. Should skiff
 * one day check the usage it is sent, this trigger is gone and this test says
 * so by failing; find the next real internal failure then. Run with and
 * without CI=true.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockUsage } from "../support/mock_server.ts";

/** What the endpoint sends: a token count that is not a number. */
const malformedUsage = {
  prompt_tokens: {},
  completion_tokens: 1,
  total_tokens: 13,
} as unknown as MockUsage;

Deno.test("attribution: skiff's own failure on the endpoint's malformed usage ends the run as harness/internal_error, and stats count it", async () => {
  await withMockSandbox([{ text: "an answer", usage: malformedUsage }], async (sandbox) => {
    const run = await runSkiff(["run", "--json", "go"], sandbox);
    assertEquals(run.code, 1, run.stderr);
    const events = parseJsonLines(run.stdout);
    const error = events.find((event) => event.type === "error");
    assertEquals(error?.code, "internal");
    assertStringIncludes(String(error?.message), "SQLite");
    const end = events.at(-1)!;
    assertEquals(end.type, "session.completed");
    assertEquals(end.attribution, { layer: "harness", reason: "internal_error" });

    const stats = JSON.parse((await runSkiff(["sessions", "stats", "--json"], sandbox)).stdout);
    assertEquals([stats.runs, stats.failures, stats.inferred], [1, 1, 0]);
    const harness = stats.layers.find((entry: { layer: string }) => entry.layer === "harness");
    assertEquals(harness, { layer: "harness", count: 1, share: 1 });
    assertEquals(stats.reasons, [
      { layer: "harness", reason: "internal_error", count: 1, share: 1 },
    ]);
    const text = await runSkiff(["sessions", "stats"], sandbox);
    assertStringIncludes(text.stdout, "1 of 1 runs did not succeed.");
    assertStringIncludes(text.stdout, "harness/internal_error");
  });
});
