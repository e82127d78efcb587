/**
 * Python diagnostics after edits, through `skiff tool` with the real
 * pyright: apply_patch introducing a type error gets it back, and the patch
 * that fixes it gets none.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import { diagnosticsOf, requireServer, writeFiles } from "./_servers.ts";

const CONFIG = JSON.stringify({ lsp: { firstWaitMs: 60_000, waitMs: 30_000 } });

function patch(from: string, to: string): string {
  return JSON.stringify({
    tool: "apply_patch",
    input: {
      patch: `*** Begin Patch\n*** Update File: app.py\n@@\n-${from}\n+${to}\n*** End Patch`,
    },
  });
}

Deno.test("a patch that introduces a Python type error gets it back; the fix gets none", async () => {
  await requireServer("pyright-langserver");
  const sandbox = await makeSandbox();
  try {
    await writeFiles(sandbox, {
      "skiff.json": CONFIG,
      "app.py": "def double(n: int) -> int:\n    return n * 2\n\n\nvalue: int = double(2)\n",
    });
    const lines = [
      JSON.stringify({ tool: "read", input: { file_path: "app.py" } }),
      patch("value: int = double(2)", 'value: int = double("2")'),
      patch('value: int = double("2")', "value: int = double(3)"),
    ].join("\n") + "\n";
    const result = await runSkiff(["tool"], sandbox, { input: lines });
    assertEquals(result.code, 0, result.stderr);
    const [, broke, fixed] = parseJsonLines(result.stdout);
    const introduced = diagnosticsOf(broke);
    assertEquals(introduced.errors.length, 1, JSON.stringify(introduced));
    assertEquals(introduced.errors[0].line, 5);
    assertStringIncludes(introduced.errors[0].message, "\"Literal['2']\"");
    assertEquals(diagnosticsOf(fixed).errors, []);
  } finally {
    await sandbox.cleanup();
  }
});
