/**
 * Each command's module loads only when that command runs
 * (src/cli/command_loader.ts): help never evaluates a command's module, and a
 * module failing to load is reported once.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, type Sandbox } from "../support/cli.ts";
import { poisonedImportMap, readsWithPoison, runPoisoned } from "../support/poisoned_imports.ts";

/** deno.json's import map with `modules` (paths under src/cli) pointing at modules that throw. */
async function commandsPoisoned(sandbox: Sandbox, modules: string[]): Promise<string> {
  const file = await poisonedImportMap(sandbox.root, []);
  const map = JSON.parse(await Deno.readTextFile(file));
  for (const module of modules) {
    const poison = path.join(sandbox.root, `poisoned_${module}.js`);
    await Deno.writeTextFile(poison, `throw new Error("POISON: ${module} was evaluated");\n`);
    map.imports[new URL(`../../src/cli/${module}`, import.meta.url).href] = `file://${poison}`;
  }
  await Deno.writeTextFile(file, JSON.stringify(map));
  return file;
}

Deno.test("help for run and tool evaluates neither command's module", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await commandsPoisoned(sandbox, ["run.ts", "tool.ts"]);
    for (const command of ["run", "tool"]) {
      const result = await runPoisoned(sandbox, map, [command, "--help"]);
      assertEquals(result.code, 0, result.stderr);
      assertStringIncludes(result.stdout, `Usage: skiff ${command}`);
      assertEquals(result.stderr.includes("POISON"), false, result.stderr);
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a command module that fails to load is reported once, with exit 1", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await commandsPoisoned(sandbox, ["tool.ts"]);
    const result = await runPoisoned(sandbox, map, ["tool", "read", '{"file_path":"a"}']);
    assertEquals(result.code, 1, result.stderr);
    assertEquals(result.stderr.split("POISON: tool.ts was evaluated").length - 1, 1, result.stderr);
    // A usage error is reported as such, before any command module loads.
    const usage = await runPoisoned(sandbox, map, ["tool", "--sandbox", "nowhere"]);
    assertEquals(usage.code, 2, usage.stderr);
    assertStringIncludes(usage.stderr, "nowhere");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff tool read works end to end", async () => {
  const sandbox = await makeSandbox();
  try {
    await readsWithPoison(sandbox, await poisonedImportMap(sandbox.root, []));
  } finally {
    await sandbox.cleanup();
  }
});
