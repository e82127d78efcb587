/**
 * The repeated-call guard is for a model stuck in a loop; an MCP client is
 * not one. Through the SDK client: ten identical reads sent at once, and
 * the same `git status` three times in a row, all run. (A model's third
 * identical call is still refused: tests/cli/hints_test.ts and
 * tests/permission/gate_test.ts.)
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runInWorkspace } from "../../support/cli.ts";
import { mcpServeClient, toolText } from "../../support/mcp_serve_client.ts";

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };

Deno.test("mcp serve: ten concurrent identical reads and three identical git status calls all run", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "same\n");
    const init = await runInWorkspace("git", ["init", "-q"], sandbox);
    assertEquals(init.code, 0, init.stderr);
    const { client, close } = await mcpServeClient(sandbox, ["--allow", "bash(git status)"]);
    try {
      const reads = await Promise.all(
        Array.from(
          { length: 10 },
          () => client.callTool({ name: "read", arguments: { file_path: "a.txt" } }),
        ),
      );
      for (const [index, read] of reads.entries()) {
        assertEquals(
          (read as ToolText).isError ?? false,
          false,
          `read ${index}: ${toolText(read)}`,
        );
        assertStringIncludes(toolText(read), "same");
      }
      for (let i = 0; i < 3; i++) {
        const status = await client.callTool({
          name: "bash",
          arguments: { command: "git status" },
        });
        const text = toolText(status);
        if ((status as ToolText).isError && /sandbox|bwrap|unsandboxed/i.test(text)) {
          // The guard's part is still proven: the refusal is the sandbox's, not a loop's.
          console.warn(`WARNING: no OS sandbox here, so git status could not run: ${text}`);
          assert(!/three times in a row|doom_loop/.test(text), text);
          continue;
        }
        assertEquals((status as ToolText).isError ?? false, false, `git status ${i + 1}: ${text}`);
        assertStringIncludes(text, "a.txt");
      }
    } finally {
      await close();
    }
  } finally {
    await sandbox.cleanup();
  }
});
