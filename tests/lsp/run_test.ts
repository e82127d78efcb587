/**
 * Diagnostics in a model's run, end to end through `skiff run --json` against
 * the scripted mock and the real typescript-language-server: the model reads
 * a file (its server starts then), edits in a type error, and its next
 * request carries the error; `tool.completed` holds it in its metadata.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { requireServer, writeFiles } from "./_servers.ts";

const SCRIPT: MockTurn[] = [
  { toolCalls: [{ name: "read", arguments: { file_path: "total.ts" } }] },
  {
    toolCalls: [{
      name: "edit",
      arguments: { file_path: "total.ts", old_string: "= 0", new_string: '= "zero"' },
    }],
  },
  { text: "I will fix the type next." },
];

Deno.test("a model's edit that breaks a type gets the error in its next request", async () => {
  await requireServer("typescript-language-server");
  await withMockSandbox(SCRIPT, async (sandbox, mock) => {
    await writeFiles(sandbox, {
      "tsconfig.json": '{"compilerOptions":{"strict":true}}\n',
      "skiff.json": JSON.stringify({ lsp: { firstWaitMs: 60_000, waitMs: 30_000 } }),
      "total.ts": "export const total: number = 0;\n",
    });
    const result = await runSkiff(["run", "--json", "change the total"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const edit = parseJsonLines(result.stdout).find((event) =>
      event.type === "tool.completed" && event.tool === "edit"
    );
    assert(edit, result.stdout);
    const diagnostics = (edit.metadata as { diagnostics: { errors: { code?: string }[] } })
      .diagnostics;
    assertEquals(diagnostics.errors.map((error) => error.code), ["2322"]);
    assertEquals(mock.requests.length, 3);
    assertStringIncludes(JSON.stringify(mock.requests[2].messages), "total.ts:1:14: TS2322");
  });
});
