/**
 * Commands started by the engine in its permission-restricted Worker can be
 * stopped: a timeout ends the command and everything it started, under
 * bubblewrap, end to end through `skiff run`.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";

Deno.test("a bash timeout inside the engine Worker stops the whole command", async () => {
  const marker = `${41 + Math.floor(Math.random() * 50)}.${Date.now() % 100000}`;
  await withMockSandbox([
    {
      toolCalls: [{
        name: "bash",
        arguments: { command: `sleep ${marker} & sleep ${marker}`, timeout_ms: 1000 },
      }],
    },
    { text: "it timed out" },
  ], async (sandbox, mock) => {
    const started = Date.now();
    const result = await runSkiff(["run", "--yes", "wait"], sandbox);
    const elapsed = Date.now() - started;
    assertEquals(result.code, 0, result.stderr);
    assert(elapsed < 15_000, `the run took ${elapsed} ms for a 1 s timeout`);
    const toolMessage = (mock.requests[1].messages as { role: string; content: string }[])
      .find((message) => message.role === "tool")!;
    assertStringIncludes(toolMessage.content.toLowerCase(), "timed out");
    const { stdout } = await new Deno.Command("pgrep", { args: ["-af", `sleep ${marker}`] })
      .output();
    assertEquals(new TextDecoder().decode(stdout).trim(), "", "nothing left running");
  });
});
