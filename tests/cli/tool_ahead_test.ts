/**
 * `skiff tool` on JSON Lines sends calls to the engine ahead of their
 * answers (src/cli/tool.ts): they still run one after another in the order
 * given, answers come in that order, and a caller that waits for each
 * answer before it writes the next line gets it.
 */
import { assertEquals } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, toolSession } from "../support/cli.ts";

Deno.test("skiff tool: calls sent ahead run in the order given", async () => {
  const sandbox = await makeSandbox();
  try {
    const calls = [
      // Slow first: had the next run beside it, it would find no file.
      { tool: "bash", input: { command: "sleep 0.3; echo one > f.txt" } },
      { tool: "read", input: { file_path: "f.txt" } },
      { tool: "bash", input: { command: "echo two > f.txt" } },
      { tool: "read", input: { file_path: "f.txt" } },
      { tool: "nope", input: {} },
      { tool: "bash", input: { command: "cat f.txt" } },
    ];
    const result = await runSkiff(["tool", "--yes", "--sandbox", "full-access"], sandbox, {
      input: calls.map((call) => JSON.stringify(call)).join("\n") + "\n",
    });
    const answers = parseJsonLines(result.stdout);
    assertEquals(answers.map((answer) => answer.ok), [true, true, true, true, false, true]);
    assertEquals(answers.map((answer) => answer.tool), calls.map((call) => call.tool));
    assertEquals(String(answers[1].output).split("\n")[0], "     1\tone");
    assertEquals(String(answers[3].output).split("\n")[0], "     1\ttwo");
    assertEquals(String(answers[5].output).split("\n")[0], "two");
    assertEquals(result.code, 1, result.stderr);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff tool: a caller that waits for each answer before the next line gets it", async () => {
  const sandbox = await makeSandbox();
  await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n");
  const tool = toolSession(sandbox);
  try {
    for (const round of [1, 2, 3]) {
      // Not three identical calls in a row, which the doom_loop rule asks about.
      const answer = await tool.call({
        tool: "read",
        input: { file_path: "a.txt", limit: 10 + round },
      });
      assertEquals([answer.tool, answer.ok], ["read", true], JSON.stringify(answer));
    }
    await tool.end();
    assertEquals((await tool.child.status).code, 0);
  } finally {
    await tool.stop();
    await sandbox.cleanup();
  }
});
