/**
 * Usage and cost end to end: the endpoint's usage (cached tokens included)
 * priced from the config, in `session.completed`, `skiff sessions show` and
 * `skiff usage`; a model with no price shows tokens only.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import { startDialectServer } from "../../support/dialect_server.ts";
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

Deno.test("usage: a reasoning model's tokens and OpenRouter's own cost reach skiff usage and sessions show", async () => {
  // OpenRouter reports reasoning tokens, cached tokens and the request's
  // cost; its cost wins over a price set in the config.
  const server = startDialectServer("openrouter", [
    { reasoning: "Two plus two.\nThat is four.", text: "4" },
    { reasoning: "Again.", text: "still 4" },
  ]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
  try {
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ models: { "test-model": { cost: { input: 1000, output: 1000 } } } }),
    );
    const first = await runSkiff(["run", "--json", "what is 2+2?"], sandbox);
    assertEquals(first.code, 0, first.stderr);
    const completed = parseJsonLines(first.stdout).at(-1)!;
    assertEquals(completed.usage, {
      input_tokens: 100,
      output_tokens: 20,
      total_tokens: 120,
      cached_input_tokens: 50,
      reasoning_tokens: 7,
      cost_usd: 0.0015,
    });
    const sessionId = String(completed.session_id);
    const second = await runSkiff(["run", "--json", "--continue", "again?"], sandbox);
    assertEquals(second.code, 0, second.stderr);

    const report = await runSkiff(["usage", "--json"], sandbox);
    assertEquals(report.code, 0, report.stderr);
    const parsed = JSON.parse(report.stdout);
    assertEquals(parsed.rows, [{
      key: "test-model",
      requests: 2,
      input_tokens: 200,
      output_tokens: 40,
      cached_input_tokens: 100,
      reasoning_tokens: 14,
      cost_usd: 0.003,
      unpriced_requests: 0,
    }]);
    assertEquals(parsed.total.reasoning_tokens, 14);

    const text = await runSkiff(["usage"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stdout.split("\n")[0], "reasoning");
    assertStringIncludes(text.stdout, "$0.003");

    const show = await runSkiff(["sessions", "show", sessionId], sandbox);
    assertEquals(show.code, 0, show.stderr);
    assertStringIncludes(show.stdout, "- Tokens: 200 in (100 cached), 40 out (14 reasoning)");
    assertStringIncludes(show.stdout, "- Cost: $0.003");

    const exported = await runSkiff(["sessions", "export", sessionId], sandbox);
    assertEquals(exported.code, 0, exported.stderr);
    const own = JSON.parse(exported.stdout).usage.own;
    assertEquals([own.reasoning_tokens, own.cached_input_tokens, own.cost_usd], [14, 100, 0.003]);
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
});
