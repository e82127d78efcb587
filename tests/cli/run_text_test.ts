/**
 * End-to-end text mode of `skiff run`: what a CI log shows of a failing
 * command and of an edit.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";

Deno.test("a failing command shows its exit code, marked, and --json carries it too", async () => {
  const script: MockTurn[] = [
    { toolCalls: [{ name: "bash", arguments: { command: "false" } }] },
    { toolCalls: [{ name: "bash", arguments: { command: "true" } }] },
    { text: "done" },
  ];
  await withMockSandbox([...script, ...script], async (sandbox) => {
    const flags = ["--allow", "bash(false *)", "--allow", "bash(true *)"];
    const text = await runSkiff(["run", ...flags, "go"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stderr, "✗ bash false (exit 1)\n");
    assertStringIncludes(text.stderr, "✓ bash true (exit 0)\n");
    const json = await runSkiff(["run", "--json", ...flags, "go"], sandbox);
    const completed = parseJsonLines(json.stdout).filter((event) =>
      event.type === "tool.completed"
    );
    assertEquals(
      completed.map((event) => (event.metadata as { exitCode: number }).exitCode),
      [1, 0],
    );
  });
});

Deno.test("an edit shows its diff under its line in a log (plain, no colour)", async () => {
  await withMockSandbox([
    { toolCalls: [{ name: "read", arguments: { file_path: "app.ts" } }] },
    {
      toolCalls: [{
        name: "edit",
        arguments: { file_path: "app.ts", old_string: "port = 80", new_string: "port = 8080" },
      }],
    },
    { text: "done" },
  ], async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/app.ts`, "const port = 80;\nlisten(port);\n");
    const result = await runSkiff(["run", "change the port"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stderr, "✓ edit app.ts (+1 -1)\n");
    assertStringIncludes(result.stderr, "\n  -const port = 80;\n  +const port = 8080;\n");
    assertEquals(result.stderr.includes("\x1b["), false, "no colour in a log");
  });
});
