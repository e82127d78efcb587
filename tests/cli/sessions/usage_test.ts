/**
 * Usage and cost end to end: the endpoint's usage (cached tokens included)
 * priced from the config, in `session.completed`, `skiff sessions show` and
 * `skiff usage`; a model with no price shows tokens only.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import * as path from "node:path";

Deno.test("usage: priced run reports cost in session.completed, sessions show and skiff usage", async () => {
  await withMockSandbox([
    { text: "hi", usage: { prompt_tokens: 2_000, completion_tokens: 100, cached_tokens: 1_000 } },
  ], async (sandbox) => {
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({
        models: { "mock-model": { cost: { input: 2, cachedInput: 0.5, output: 8 } } },
      }),
    );
    const run = await runSkiff(["run", "--json", "say hi"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const completed = parseJsonLines(run.stdout).at(-1)!;
    // 1000 × $2 + 1000 × $0.5 + 100 × $8, per million = $0.0033
    assertEquals(completed.usage, {
      input_tokens: 2000,
      output_tokens: 100,
      total_tokens: 2100,
      cached_input_tokens: 1000,
      cost_usd: 0.0033,
    });

    const show = await runSkiff(["sessions", "show", String(completed.session_id)], sandbox);
    assertEquals(show.code, 0, show.stderr);
    assertStringIncludes(show.stdout, "- Tokens: 2000 in (1000 cached), 100 out");
    assertStringIncludes(show.stdout, "- Cost: $0.0033");

    const report = await runSkiff(["usage", "--since", "7d", "--json"], sandbox);
    assertEquals(report.code, 0, report.stderr);
    const parsed = JSON.parse(report.stdout);
    assertEquals(parsed.by, "model");
    assertEquals(
      parsed.rows.map((row: { key: string; requests: number }) => [row.key, row.requests]),
      [
        ["mock-model", 1],
      ],
    );
    assertEquals(parsed.total.cost_usd, 0.0033);

    const text = await runSkiff(["usage", "--by", "day"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stdout, new Date().toISOString().slice(0, 10));
    assertStringIncludes(text.stdout, "$0.0033");
  });
});

Deno.test("usage: an unpriced model shows tokens and no made-up cost", async () => {
  await withMockSandbox([
    { text: "hi", usage: { prompt_tokens: 300, completion_tokens: 7 } },
  ], async (sandbox) => {
    const run = await runSkiff(["run", "--json", "say hi"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    const completed = parseJsonLines(run.stdout).at(-1)!;
    assertEquals(completed.usage, { input_tokens: 300, output_tokens: 7, total_tokens: 307 });
    const text = await runSkiff(["usage"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stdout, "mock-model");
    assertStringIncludes(text.stdout, "no known price");
    const bad = await runSkiff(["usage", "--since", "yesterday"], sandbox);
    assertEquals(bad.code, 2);
    assertStringIncludes(bad.stderr, "--since takes an age");
  });
});
