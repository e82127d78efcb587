/**
 * An endpoint whose usage is not what the API says (a count that is an
 * object, a string, negative, null) does not end the run. skiff took the
 * counts as given and its store refused one ("cannot be bound to SQLite
 * parameter"): the run ended as an internal error. A count that is not a
 * finite, non-negative number now counts as not reported. Run with and
 * without CI=true.
 */
import { assertEquals } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockUsage } from "../support/mock_server.ts";
import { mapUsage } from "../../src/provider/chat/stream_assembler.ts";

/** What the endpoint sends: a token count that is not a number. */
const malformedUsage = {
  prompt_tokens: {},
  completion_tokens: 1,
  total_tokens: 13,
} as unknown as MockUsage;

for (const ci of [undefined, "true"]) {
  Deno.test(`usage: an endpoint's malformed token count does not end the run (CI ${ci ?? "unset"})`, async () => {
    await withMockSandbox([{ text: "an answer", usage: malformedUsage }], async (sandbox) => {
      const run = await runSkiff(["run", "--json", "go"], sandbox, {
        env: ci ? { CI: ci } : {},
      });
      assertEquals(run.code, 0, run.stderr);
      const events = parseJsonLines(run.stdout);
      assertEquals(events.find((event) => event.type === "error"), undefined);
      const end = events.at(-1)!;
      assertEquals(end.type, "session.completed");
      assertEquals(end.attribution, undefined);
      const turn = events.find((event) => event.type === "turn.completed");
      assertEquals((turn?.usage as { input_tokens: number }).input_tokens, 0);
    });
  });
}

Deno.test("mapUsage: only finite, non-negative numbers count; the rest is not reported", () => {
  const odd = {
    prompt_tokens: "12",
    completion_tokens: -3,
    total_tokens: Infinity,
    prompt_tokens_details: { cached_tokens: {} },
  } as unknown as Parameters<typeof mapUsage>[0];
  assertEquals(mapUsage(odd), { input_tokens: 0, output_tokens: 0, total_tokens: 0 });
  assertEquals(
    mapUsage({
      prompt_tokens: 10.7,
      completion_tokens: 2,
      total_tokens: null,
      prompt_tokens_details: { cached_tokens: 4 },
    }),
    { input_tokens: 10, output_tokens: 2, total_tokens: 12, cached_input_tokens: 4 },
  );
});
