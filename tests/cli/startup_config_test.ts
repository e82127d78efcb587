/**
 * The terminal side's start evaluates the config schema (and zod with it)
 * only when a layer needs it (src/config/check.ts): `skiff tool` and `skiff
 * run` with no config file, with the provider set in the environment, or with
 * the flags that set config keys (`--add-dir`, `--sandbox`…), run with
 * src/config/schema.ts poisoned by an import map (the engine's Worker never
 * imports it). The control shows the poison bites when a config file is there.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, type Sandbox } from "../support/cli.ts";
import { poisonedImportMap, readsWithPoison, runPoisoned } from "../support/poisoned_imports.ts";
import { startMockServer } from "../support/mock_server.ts";

const SCHEMA = new URL("../../src/config/schema.ts", import.meta.url).href;

/** deno.json's import map with src/config/schema.ts pointing at a module that throws. */
async function schemaPoisoned(sandbox: Sandbox): Promise<string> {
  const file = await poisonedImportMap(sandbox.root, []);
  const map = JSON.parse(await Deno.readTextFile(file));
  const poison = path.join(sandbox.root, "poisoned_schema.js");
  await Deno.writeTextFile(
    poison,
    'export const ConfigSchema = null;\nthrow new Error("POISON: the config schema was evaluated");\n',
  );
  map.imports[SCHEMA] = `file://${poison}`;
  await Deno.writeTextFile(file, JSON.stringify(map));
  return file;
}

if (Deno.env.get("SKIFF_BIN")) {
  console.warn(
    "startup_config_test: these checks run main.ts with `deno run` even with SKIFF_BIN set " +
      `(an import map cannot reach into a compiled binary; ${MAIN}).`,
  );
}

Deno.test("skiff tool read with no config file does not evaluate the config schema", async () => {
  const sandbox = await makeSandbox();
  try {
    await readsWithPoison(sandbox, await schemaPoisoned(sandbox));
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff run with the provider in the environment does not evaluate it either", async () => {
  const mock = startMockServer([{ text: "answer without the schema" }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const map = await schemaPoisoned(sandbox);
    const result = await runPoisoned(sandbox, map, ["run", "hello"]);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "answer without the schema");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("the flags' config keys skip the schema; control: a config file is checked by it", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const map = await schemaPoisoned(sandbox);
    // --add-dir, --sandbox, --sandbox-backend and --no-memory set config keys whose values the
    // schema returns as they are: checked without it (src/config/check.ts).
    const withFlags = await runPoisoned(sandbox, map, [
      "tool",
      "--add-dir",
      ".",
      "--sandbox",
      "workspace-write",
      "--sandbox-backend",
      "auto",
      "--no-memory",
      "read",
      '{"file_path":"one.txt"}',
    ]);
    assertEquals(withFlags.code, 0, withFlags.stderr);
    assert(!withFlags.stderr.includes("POISON"), withFlags.stderr);
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ maxTurns: 3 }),
    );
    const withFile = await runPoisoned(sandbox, map, ["tool", "read", '{"file_path":"one.txt"}']);
    assert(withFile.code !== 0, "a config file should have needed the schema");
    assertStringIncludes(withFile.stderr, "POISON");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a wrong base URL in the environment still gets the schema's message", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "ftp://example.com", SKIFF_MODEL: "m" });
  try {
    const map = await poisonedImportMap(sandbox.root, []);
    const result = await runPoisoned(sandbox, map, ["run", "hello"]);
    assertEquals(result.code, 2, result.stderr);
    assertStringIncludes(result.stderr, "OPENAI_BASE_URL");
  } finally {
    await sandbox.cleanup();
  }
});
