/**
 * Config mistakes as users make them, each reported with the place (file,
 * variable or option), the key and what to do: a config path that is a
 * folder or unreadable, a key written twice, a Windows path with single
 * backslashes, and bad environment values or flags told apart from files.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { JsoncSyntaxError, parseJsonc } from "../../src/config/jsonc.ts";

/** A fake home holding a workspace; returns paths and a loader. */
async function home() {
  const root = await Deno.makeTempDir({ prefix: "skiff-config-mistakes-" });
  const workspace = path.join(root, "work");
  await Deno.mkdir(workspace, { recursive: true });
  const globalFile = path.join(root, ".config", "skiff", "config.json");
  return {
    root,
    workspace,
    globalFile,
    load: (env: Record<string, string> = {}, flags?: Record<string, unknown>) =>
      assertRejects(
        () => loadConfig({ workspace, home: root, env, flags }),
        ConfigError,
      ) as Promise<ConfigError>,
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const isRoot = Deno.uid?.() === 0;

Deno.test("config: a config path that is a folder says so, not 'check its permissions'", async () => {
  await using box = await home();
  await Deno.mkdir(box.globalFile, { recursive: true });
  const error = await box.load();
  assertEquals(error.source, box.globalFile);
  assertStringIncludes(error.message, box.globalFile);
  assertStringIncludes(error.message, "is a folder");
  assert(!error.message.includes("permissions"), error.message);
});

if (isRoot) console.warn("skipping the unreadable-file config test: root reads every file");
Deno.test({
  name: "config: an unreadable config file names the file and how to fix it",
  ignore: isRoot,
  fn: async () => {
    await using box = await home();
    await Deno.mkdir(path.dirname(box.globalFile), { recursive: true });
    await Deno.writeTextFile(box.globalFile, "{}");
    await Deno.chmod(box.globalFile, 0o000);
    const error = await box.load();
    assertStringIncludes(error.message, box.globalFile);
    assertStringIncludes(error.message, "chmod");
  },
});

Deno.test("config: a key written twice is an error at the second one", async () => {
  const twice = assertThrows(() => parseJsonc('{\n  "maxTurns": 3,\n  "maxTurns": 40\n}'));
  assertEquals([twice.line, twice.column], [3, 3]);
  assertStringIncludes(twice.reason, `"maxTurns" appears twice`);
  assertStringIncludes(twice.reason, "line 2");

  // Only keys of one object count: the same name in two objects is fine.
  assertEquals(parseJsonc('{"a": {"x": 1}, "b": {"x": 2}}'), { a: { x: 1 }, b: { x: 2 } });

  await using box = await home();
  await Deno.writeTextFile(
    path.join(box.workspace, "skiff.json"),
    '{ "provider": { "model": "a" }, "provider": { "apiKey": "k" } }',
  );
  const error = await box.load();
  assertStringIncludes(error.message, path.join(box.workspace, "skiff.json"));
  assertStringIncludes(error.message, `"provider" appears twice`);
});

Deno.test("config: a Windows path with single backslashes gets told to double them", () => {
  const error = assertThrows(() => parseJsonc('{"sandbox": {"addDirs": ["C:\\Users\\me"]}}'));
  assertStringIncludes(error.reason, "\\\\");
  assertStringIncludes(error.reason, "C:\\Users");
});

Deno.test("config: a bad environment value or flag says to fix that, not 'the config'", async () => {
  await using box = await home();
  const env = await box.load({ OPENAI_BASE_URL: "localhost:1234/v1" });
  assertStringIncludes(env.message, "OPENAI_BASE_URL");
  assertStringIncludes(env.message, "environment variable");
  assert(!env.message.includes("Fix the config"), env.message);

  const flag = await box.load({}, { maxTurns: 0 });
  assertStringIncludes(flag.message, "maxTurns");
  assertStringIncludes(flag.message, "--help");
  assert(!flag.message.includes("Fix the config"), flag.message);
});

function assertThrows(fn: () => unknown): JsoncSyntaxError {
  try {
    fn();
  } catch (error) {
    if (error instanceof JsoncSyntaxError) return error;
    throw error;
  }
  throw new Error("expected a syntax error");
}

Deno.test("config: a value of the wrong type where two types fit names both; counts read right", async () => {
  await using box = await home();
  await Deno.writeTextFile(
    path.join(box.workspace, "skiff.json"),
    '{ "mcp": { "a": { "command": 5 }, "b": { "command": [] } } }',
  );
  const error = await box.load();
  assertEquals(error.problems, [
    { keyPath: "mcp.a.command", message: "expected a string or a list, got 5" },
    { keyPath: "mcp.b.command", message: "must have at least 1 entry" },
  ]);
});

Deno.test("config: SKIFF_CONFIG_DIR naming a file says which setting to fix", async () => {
  await using box = await home();
  const notAFolder = path.join(box.root, "settings");
  await Deno.writeTextFile(notAFolder, "{}");
  const error = await box.load({ SKIFF_CONFIG_DIR: notAFolder });
  assertStringIncludes(error.message, `${notAFolder} is a file, not a folder`);
  assertStringIncludes(error.message, "SKIFF_CONFIG_DIR");
});

Deno.test("config: a number too large to hold is a syntax error at it, not 'got Infinity'", () => {
  const error = assertThrows(() => parseJsonc('{\n  "maxTurns": 1e400\n}'));
  assertEquals([error.line, error.column], [2, 15]);
  assertStringIncludes(error.reason, "1e400 is too large");
});
