/**
 * `skiff mcp serve` tells MCP clients what each tool may do (`title` and
 * `annotations`), seen through the SDK client's own listTools: reads say
 * they are read-only, file changes and commands say they are not, and every
 * served tool has hints of its own, not the careful fallback.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { makeSandbox } from "../../support/cli.ts";
import { mcpServeClient } from "../../support/mcp_serve_client.ts";
import { hasMcpToolHints } from "../../../src/engine/mcp_tool_annotations.ts";

type Listed = {
  name: string;
  title?: string;
  annotations?: {
    title?: string;
    readOnlyHint?: boolean;
    destructiveHint?: boolean;
    idempotentHint?: boolean;
    openWorldHint?: boolean;
  };
};

Deno.test("mcp serve lists a title and annotations for every tool, from what the tool may do", async () => {
  const sandbox = await makeSandbox();
  try {
    const { client, close } = await mcpServeClient(sandbox);
    let tools: Listed[];
    try {
      tools = (await client.listTools()).tools as Listed[];
    } finally {
      await close();
    }
    const byName = new Map(tools.map((tool) => [tool.name, tool]));
    for (const tool of tools) {
      assert(hasMcpToolHints(tool.name), `${tool.name} has no hints of its own`);
      assert(tool.title, `${tool.name} has no title`);
      const hints = tool.annotations!;
      for (const key of ["readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"]) {
        assertEquals(typeof hints[key as keyof typeof hints], "boolean", `${tool.name} ${key}`);
      }
    }
    const hints = (name: string) => byName.get(name)!.annotations!;
    for (const name of ["read", "grep", "glob", "list", "symbol", "harness_status"]) {
      assertEquals(hints(name).readOnlyHint, true, name);
      assertEquals(hints(name).openWorldHint, false, name);
    }
    for (const name of ["write", "edit", "apply_patch", "file_delete", "bash", "process"]) {
      assertEquals(hints(name).readOnlyHint, false, name);
      assertEquals(hints(name).destructiveHint, true, name);
    }
    assertEquals(hints("bash").openWorldHint, true);
    assertEquals(hints("webfetch").openWorldHint, true);
    assertEquals(hints("webfetch").readOnlyHint, true);
    assertEquals(hints("remember").readOnlyHint, false);
    assertEquals(hints("remember").destructiveHint, false);
    assertEquals(byName.get("read")!.title, "Read a file");
  } finally {
    await sandbox.cleanup();
  }
});
