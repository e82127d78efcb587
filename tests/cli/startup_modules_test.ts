/**
 * Start-up loads only what the command needs (docs/performance.md, "Start-up"):
 * `skiff tool` never evaluates the openai SDK nor the MCP SDK, and a run with
 * no MCP server configured never evaluates the MCP SDK, and a start with no
 * config file never evaluates the JSONC parser. Each check runs skiff
 * with an import map that points the package at a poisoned stand-in, which
 * fails any run that evaluates it; a control run that needs the package
 * proves the poison bites.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { MAIN, makeSandbox, parseJsonLines } from "../support/cli.ts";
import {
  OPENAI,
  poisonedImportMap,
  readsWithPoison,
  runPoisoned,
} from "../support/poisoned_imports.ts";
import { startMockServer } from "../support/mock_server.ts";

if (Deno.env.get("SKIFF_BIN")) {
  console.warn(
    "startup_modules_test: these checks run main.ts with `deno run` even with SKIFF_BIN set " +
      "(an import map cannot reach into a compiled binary).",
  );
}

const MCP_SDK = "@modelcontextprotocol/sdk/";

Deno.test("skiff tool read evaluates neither the openai SDK nor the MCP SDK", async () => {
  const sandbox = await makeSandbox();
  try {
    await readsWithPoison(sandbox, await poisonedImportMap(sandbox.root, [...OPENAI, MCP_SDK]));
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("skiff tool over JSON Lines on stdin evaluates neither SDK either", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const map = await poisonedImportMap(sandbox.root, [...OPENAI, MCP_SDK]);
    const input = path.join(sandbox.root, "calls.jsonl");
    await Deno.writeTextFile(
      input,
      '{"tool":"read","input":{"file_path":"one.txt"}}\n{"tool":"glob","input":{"pattern":"*.txt"}}\n',
    );
    const output = await new Deno.Command("sh", {
      args: [
        "-c",
        `"$0" run --allow-all --unstable-worker-options --no-prompt --import-map "$1" "$2" tool < "$3"`,
        Deno.execPath(),
        map,
        MAIN,
        input,
      ],
      cwd: sandbox.workspace,
      // The sources, as runPoisoned runs them (tests/support/poisoned_imports.ts).
      env: { ...sandbox.env, SKIFF_BUNDLE: "0" },
      clearEnv: true,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const stderr = new TextDecoder().decode(output.stderr);
    assertEquals(output.code, 0, stderr);
    const lines = parseJsonLines(new TextDecoder().decode(output.stdout));
    assertEquals(lines.map((line) => line.ok), [true, true]);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a run with no MCP server configured does not evaluate the MCP SDK", async () => {
  const mock = startMockServer([{ text: "answer without mcp" }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    const map = await poisonedImportMap(sandbox.root, [MCP_SDK]);
    const result = await runPoisoned(sandbox, map, ["run", "hello"]);
    assertEquals(result.code, 0, result.stderr);
    assertStringIncludes(result.stdout, "answer without mcp");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});

Deno.test("a start with no config file does not evaluate the JSONC parser; one with a file does", async () => {
  const sandbox = await makeSandbox();
  try {
    const map = await poisonedImportMap(sandbox.root, ["jsonc-parser"]);
    await readsWithPoison(sandbox, map);
    // Control: a config file to read makes the start evaluate the parser, and the poison bites.
    await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), "{ // a comment\n}\n");
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const withFile = await runPoisoned(sandbox, map, ["tool", "read", '{"file_path":"one.txt"}']);
    assert(withFile.code !== 0, "a start that reads a config file should evaluate the parser");
    assertStringIncludes(withFile.stderr, "jsonc-parser");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("control: the poisoned packages do fail a run that needs them", async () => {
  const mock = startMockServer([{ text: "never seen" }, { text: "never seen" }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" });
  try {
    // A model run evaluates the openai SDK.
    const openaiMap = await poisonedImportMap(sandbox.root, OPENAI);
    const withModel = await runPoisoned(sandbox, openaiMap, ["run", "hello"]);
    assert(withModel.code !== 0, "a run with the openai SDK poisoned should fail");
    assertStringIncludes(withModel.stderr, "openai");
    // A configured MCP server makes the session load the MCP client.
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ mcp: { stub: { command: "true" } } }),
    );
    const mcpMap = await poisonedImportMap(sandbox.root, [MCP_SDK]);
    const withMcp = await runPoisoned(sandbox, mcpMap, ["run", "hello"]);
    assert(withMcp.code !== 0, "a run with an MCP server and the MCP SDK poisoned should fail");
    assertStringIncludes(withMcp.stderr, "poison");
  } finally {
    await mock.close();
    await sandbox.cleanup();
  }
});
