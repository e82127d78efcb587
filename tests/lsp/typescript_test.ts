/**
 * TypeScript diagnostics after edits, through `skiff tool` with the real
 * typescript-language-server: a new type error comes back with the edit, a
 * fix brings none, and an error that was there before is not reported again.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import { diagnosticsOf, requireServer, writeFiles } from "./_servers.ts";

// The machine may be busy: the first file of a server waits long enough here.
const CONFIG = JSON.stringify({ lsp: { firstWaitMs: 60_000, waitMs: 30_000 } });

function call(tool: string, input: Record<string, unknown>): string {
  return JSON.stringify({ tool, input });
}

Deno.test("an edit that introduces a type error gets it back; the fix gets none", async () => {
  await requireServer("typescript-language-server");
  const sandbox = await makeSandbox();
  try {
    await writeFiles(sandbox, {
      "tsconfig.json": '{"compilerOptions":{"strict":true}}\n',
      "skiff.json": CONFIG,
      "src/count.ts": "export const count: number = 1;\nexport const broken: string = 2;\n",
    });
    const lines = [
      call("read", { file_path: "src/count.ts" }),
      call("edit", { file_path: "src/count.ts", old_string: "= 1", new_string: '= "one"' }),
      call("edit", { file_path: "src/count.ts", old_string: '= "one"', new_string: "= 3" }),
      call("write", { file_path: "src/fresh.ts", content: "export const flag: boolean = 0;\n" }),
    ].join("\n") + "\n";
    const result = await runSkiff(["tool"], sandbox, { input: lines });
    assertEquals(result.code, 0, result.stderr);
    const [, broke, fixed, created] = parseJsonLines(result.stdout);

    const introduced = diagnosticsOf(broke);
    assertEquals(introduced.errors.length, 1, JSON.stringify(introduced));
    assertEquals(introduced.errors[0].code, "2322");
    assertEquals(introduced.errors[0].line, 1);
    assertStringIncludes(String(broke.output), "src/count.ts:1:14: TS2322");
    // The error on line 2 was there before the change: not reported.
    assert(!String(broke.output).includes("src/count.ts:2"), String(broke.output));

    assertEquals(diagnosticsOf(fixed).errors, []);
    assert(!String(fixed.output).includes("New errors"), String(fixed.output));

    const fresh = diagnosticsOf(created);
    assertEquals(fresh.errors.map((error) => error.path), ["src/fresh.ts"]);
  } finally {
    await sandbox.cleanup();
  }
});
