/**
 * The search tools' libraries (ignore, picomatch) are evaluated at the first
 * search call, not at every engine start (src/tools/search/_search_libraries.ts,
 * docs/performance.md "Start-up"). skiff runs with an import map that points
 * both at a stand-in that throws when evaluated: a `skiff tool read` must not
 * notice, and the control shows the poison bites once a search runs, so the
 * first test proves something. A last test runs every search tool unpoisoned
 * through `skiff tool` (the engine's Worker), so the written-out imports do
 * load there.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../../support/cli.ts";
import { poisonedImportMap, readsWithPoison, runPoisoned } from "../../support/poisoned_imports.ts";

Deno.test("skiff tool read never evaluates the search tools' libraries (ignore, picomatch)", async () => {
  const sandbox = await makeSandbox();
  try {
    await readsWithPoison(sandbox, await poisonedImportMap(sandbox.root, ["ignore", "picomatch"]));
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("control: with the libraries poisoned, a glob call fails on the poison", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const map = await poisonedImportMap(sandbox.root, ["ignore", "picomatch"]);
    const result = await runPoisoned(sandbox, map, ["tool", "glob", '{"pattern":"*.txt"}']);
    assert(result.code !== 0, `a glob with its libraries poisoned should fail: ${result.stdout}`);
    assertStringIncludes(result.stdout + result.stderr, "POISON");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("every search tool still works through skiff tool's Worker, loading its libraries on first use", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.mkdir(path.join(sandbox.workspace, "src"));
    await Deno.writeTextFile(
      path.join(sandbox.workspace, "src", "greet.ts"),
      "export function greet() {\n  return 'hi';\n}\n",
    );
    await Deno.writeTextFile(path.join(sandbox.workspace, ".gitignore"), "skip.ts\n");
    await Deno.writeTextFile(path.join(sandbox.workspace, "skip.ts"), "greet();\n");
    const calls = [
      { tool: "glob", input: { pattern: "**/*.ts" } },
      { tool: "grep", input: { pattern: "greet", include: "*.ts" } },
      { tool: "list", input: {} },
      { tool: "symbol", input: { name: "greet" } },
    ];
    const result = await runSkiff(["tool"], sandbox, {
      input: calls.map((call) => JSON.stringify(call)).join("\n") + "\n",
    });
    assertEquals(result.code, 0, result.stderr);
    const lines = parseJsonLines(result.stdout);
    assertEquals(lines.map((line) => line.ok), [true, true, true, true], result.stdout);
    for (const line of lines) {
      assertStringIncludes(String(line.output), "greet.ts");
      // .gitignore (ignore) and the include glob (picomatch) are applied.
      assert(!String(line.output).includes("skip.ts"), String(line.output));
    }
  } finally {
    await sandbox.cleanup();
  }
});
