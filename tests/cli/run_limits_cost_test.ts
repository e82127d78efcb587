/**
 * `--max-tokens` and `--max-cost` through `skiff run` against the mock:
 * a run that spends past the limit ends as a limit (exit 5) after the step
 * that passed it, saying what was spent and how to raise it; `--max-cost`
 * for a model with no known price is refused before anything is sent.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";

const SCRIPT: MockTurn[] = [
  {
    toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }],
    usage: { prompt_tokens: 1000, completion_tokens: 100 },
  },
  { text: "never reached", usage: { prompt_tokens: 1200, completion_tokens: 10 } },
];

Deno.test("run: --max-tokens ends the run as a limit (exit 5) after the step that passed it", async () => {
  await withMockSandbox(SCRIPT, async (sandbox, mock) => {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "hello");
    const result = await runSkiff(
      ["run", "--json", "--max-tokens", "500", "read the notes"],
      sandbox,
    );
    assertEquals(result.code, 5, result.stderr);
    assertEquals(mock.requests.length, 1);
    const events = parseJsonLines(result.stdout);
    const error = events.find((event) => event.type === "error")!;
    assertEquals(error.code, "limit");
    assertStringIncludes(String(error.message), "1100 tokens");
    assertStringIncludes(String(error.message), "--max-tokens");
    const completed = events.at(-1)!;
    assertEquals(completed.type, "session.completed");
    assertEquals((completed.usage as { input_tokens: number }).input_tokens, 1000);
  });
});

Deno.test("run: --max-cost with no known price is refused (exit 2), and the printed setting makes it work", async () => {
  await withMockSandbox(SCRIPT, async (sandbox, mock) => {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "hello");
    const refused = await runSkiff(["run", "--max-cost", "0.001", "read the notes"], sandbox);
    assertEquals(refused.code, 2, refused.stderr);
    assertEquals(mock.requests.length, 0);
    assertStringIncludes(refused.stderr, 'model "mock-model"');
    const configFile = path.join(sandbox.configDir, "config.json");
    assertStringIncludes(refused.stderr, configFile);
    // The example line, as printed, is the whole config file.
    const example = refused.stderr.split("\n").map((line) => line.trim())
      .find((line) => line.startsWith("{"))!;
    assert(example, refused.stderr);
    await Deno.writeTextFile(configFile, example);

    // At $3 in / $15 out per million: 1000 in + 100 out = $0.0045, past $0.001.
    const limited = await runSkiff(
      ["run", "--json", "--max-cost", "0.001", "read the notes"],
      sandbox,
    );
    assertEquals(limited.code, 5, limited.stderr);
    assertEquals(mock.requests.length, 1);
    const events = parseJsonLines(limited.stdout);
    const error = events.find((event) => event.type === "error")!;
    assertStringIncludes(String(error.message), "$0.0045");
    assertStringIncludes(String(error.message), "--max-cost");
    const usage = events.at(-1)!.usage as { cost_usd?: number };
    assert(Math.abs((usage.cost_usd ?? 0) - 0.0045) < 1e-12, JSON.stringify(usage));
  });
});

Deno.test("run: --max-cost rejects a figure that is not dollars", async () => {
  await withMockSandbox([], async (sandbox) => {
    const result = await runSkiff(["run", "--max-cost", "five", "hi"], sandbox);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "--max-cost takes US dollars");
  });
});
