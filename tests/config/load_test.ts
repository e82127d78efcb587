import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/errors.ts";

/** A fake home with a workspace inside it; files are written relative to the root. */
async function sandbox(files: Record<string, string>) {
  const root = await Deno.makeTempDir({ prefix: "skiff-config-" });
  for (const [name, text] of Object.entries(files)) {
    const file = path.join(root, name);
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(file, text);
  }
  const home = path.join(root, "home");
  await Deno.mkdir(path.join(home, "work", "app", "src"), { recursive: true });
  return {
    root,
    home,
    workspace: path.join(home, "work", "app"),
    file: (name: string) => path.join(root, name),
    [Symbol.asyncDispose]: () => Deno.remove(root, { recursive: true }),
  };
}

const GLOBAL = "home/.config/skiff/config.json";

Deno.test("config: layers apply global → project → env → flags, objects merged deeply", async () => {
  await using box = await sandbox({
    [GLOBAL]: `{
      // global defaults
      "provider": { "model": "global-model", "maxRetries": 1, "baseURL": "http://global/v1" },
      "permission": { "bash": "ask" },
    }`,
    "home/work/app/skiff.json": `{
      "provider": { "model": "project-model", "requestTimeoutMs": 9000 },
      "permission": { "bash": { "git *": "allow" } }
    }`,
  });
  const base = { workspace: box.workspace, home: box.home };

  const noEnv = await loadConfig({ ...base, env: {} });
  assertEquals(noEnv.config.provider, {
    model: "project-model",
    maxRetries: 1,
    baseURL: "http://global/v1",
    requestTimeoutMs: 9000,
  });
  assertEquals(noEnv.files, [box.file(GLOBAL), box.file("home/work/app/skiff.json")]);

  const withEnv = await loadConfig({
    ...base,
    env: { SKIFF_MODEL: "env-model", OPENAI_BASE_URL: "http://env:8080/v1", OPENAI_API_KEY: "k" },
  });
  assertEquals(withEnv.config.provider?.model, "env-model");
  assertEquals(withEnv.config.provider?.baseURL, "http://env:8080/v1");
  assertEquals(withEnv.config.provider?.apiKey, "k");

  const withFlags = await loadConfig({
    ...base,
    env: { SKIFF_MODEL: "env-model" },
    flags: { provider: { model: "flag-model", apiKey: undefined }, permission: { edit: "deny" } },
  });
  assertEquals(withFlags.config.provider?.model, "flag-model");
  assertEquals(withFlags.config.provider?.maxRetries, 1);
  // The policy sees every layer on its own, in order.
  assertEquals(withFlags.layers, [
    { source: "global", path: box.file(GLOBAL), permission: { bash: "ask" } },
    {
      source: "project",
      path: box.file("home/work/app/skiff.json"),
      permission: { bash: { "git *": "allow" } },
    },
    { source: "flags", path: undefined, permission: { edit: "deny" } },
  ]);
});

Deno.test("config: the nearest project file wins, walking up from the workspace", async () => {
  await using box = await sandbox({
    "home/skiff.json": `{ "maxTurns": 5 }`,
    "home/work/.skiff/config.json": `{ "maxTurns": 7 }`,
  });
  const deep = path.join(box.workspace, "src");
  const loaded = await loadConfig({ workspace: deep, home: box.home, env: {} });
  assertEquals(loaded.config.maxTurns, 7);
  assertEquals(loaded.files, [box.file("home/work/.skiff/config.json")]);
  assertEquals(loaded.projectRoot, path.join(box.home, "work"));

  // Two files in one folder: skiff.json is used, the other named in a warning.
  await Deno.writeTextFile(box.file("home/work/skiff.json"), `{ "maxTurns": 9 }`);
  const both = await loadConfig({ workspace: deep, home: box.home, env: {} });
  assertEquals(both.config.maxTurns, 9);
  assertEquals(both.files, [box.file("home/work/skiff.json")]);
  assertStringIncludes(both.warnings[0], ".skiff/config.json is ignored");
});

Deno.test("config: SKIFF_CONFIG_DIR and XDG_CONFIG_HOME move the global folder", async () => {
  await using box = await sandbox({
    [GLOBAL]: `{ "maxTurns": 1 }`,
    "elsewhere/config.json": `{ "maxTurns": 2 }`,
    "xdg/skiff/config.json": `{ "maxTurns": 3 }`,
  });
  const base = { workspace: box.workspace, home: box.home };
  assertEquals((await loadConfig({ ...base, env: {} })).config.maxTurns, 1);

  const moved = await loadConfig({ ...base, env: { SKIFF_CONFIG_DIR: box.file("elsewhere") } });
  assertEquals(moved.config.maxTurns, 2);
  assertEquals(moved.configDir, box.file("elsewhere"));
  assertEquals(moved.files, [box.file("elsewhere/config.json")]);

  const xdg = await loadConfig({ ...base, env: { XDG_CONFIG_HOME: box.file("xdg") } });
  assertEquals(xdg.config.maxTurns, 3);
  // SKIFF_CONFIG_DIR is the more specific of the two.
  const bothSet = await loadConfig({
    ...base,
    env: { XDG_CONFIG_HOME: box.file("xdg"), SKIFF_CONFIG_DIR: box.file("elsewhere") },
  });
  assertEquals(bothSet.config.maxTurns, 2);
});

Deno.test("config: a syntax error names the file, line and column", async () => {
  await using box = await sandbox({
    "home/work/app/skiff.json": `{\n  "provider": {\n    "model": "x"\n    "apiKey": "y"\n  }\n}`,
  });
  const error = await assertRejects(
    () => loadConfig({ workspace: box.workspace, home: box.home, env: {} }),
    ConfigError,
  ) as ConfigError;
  assertEquals(error.exitCode, 2);
  assertEquals(error.position, { line: 4, column: 5 });
  assertStringIncludes(
    error.message,
    `${box.file("home/work/app/skiff.json")}:4:5: expected ',' or '}' after the value of "model"`,
  );
});

Deno.test("config: an unknown key is an error naming file, key path and the likely key", async () => {
  await using box = await sandbox({
    [GLOBAL]: `{ "provider": { "modle": "gpt-x" } }`,
  });
  const error = await assertRejects(
    () => loadConfig({ workspace: box.workspace, home: box.home, env: {} }),
    ConfigError,
  ) as ConfigError;
  assertEquals(error.source, box.file(GLOBAL));
  assertEquals(error.problems, [
    { keyPath: "provider.modle", message: `unknown key "modle" — did you mean "model"?` },
  ]);
  assertStringIncludes(error.message, box.file(GLOBAL));
});

Deno.test("config: wrong types and values are described in plain words", async () => {
  await using box = await sandbox({
    "home/work/app/skiff.json": `{
      "provider": { "maxRetries": "five" },
      "permission": { "bash": { "rm *": "never" } },
      "sandbox": { "mode": "readonly", "network": "yes" },
      "mcp": {
        "docs": { "command": "npx", "url": "http://localhost:3000/mcp" },
        "web": { "url": 5 },
        "local": { "comand": "server" },
        "mixed": { "command": "server", "headers": { "a": "b" } },
      },
    }`,
  });
  const error = await assertRejects(
    () => loadConfig({ workspace: box.workspace, home: box.home, env: {} }),
    ConfigError,
  ) as ConfigError;
  assertEquals(error.problems, [
    { keyPath: "provider.maxRetries", message: `expected a number, got "five"` },
    {
      keyPath: `permission.bash["rm *"]`,
      message: `expected one of "allow", "ask", "deny", got "never"`,
    },
    {
      keyPath: "sandbox.mode",
      message: `expected one of "read-only", "workspace-write", "full-access", got "readonly"` +
        ` — did you mean "read-only"?`,
    },
    { keyPath: "sandbox.network", message: `expected true or false, got "yes"` },
    {
      keyPath: "mcp.docs.url",
      message: `give either "command" (start a local server) or "url" (reach one), not both`,
    },
    { keyPath: "mcp.web.url", message: "expected a string, got 5" },
    { keyPath: "mcp.local.comand", message: `unknown key "comand" — did you mean "command"?` },
    { keyPath: "mcp.mixed.headers", message: `only applies to a server reached by "url"` },
  ]);
});

Deno.test("config: a bad environment variable or flag is reported under its own name", async () => {
  await using box = await sandbox({});
  const base = { workspace: box.workspace, home: box.home };
  const envError = await assertRejects(
    () => loadConfig({ ...base, env: { OPENAI_BASE_URL: "localhost:1234" } }),
    ConfigError,
  ) as ConfigError;
  assertEquals(envError.source, "environment");
  assertEquals(envError.problems[0].keyPath, "OPENAI_BASE_URL");

  const flagError = await assertRejects(
    () => loadConfig({ ...base, env: {}, flags: { maxTurns: 0 } }),
    ConfigError,
  ) as ConfigError;
  assertEquals(flagError.source, "command line");
  assertEquals(flagError.problems, [{
    keyPath: "maxTurns",
    message: "must be greater than 0, got 0",
  }]);
});

Deno.test("config: folders are anchored at their file, lists of folders add up, MCP entries replace", async () => {
  await using box = await sandbox({
    [GLOBAL]: `{
      "sandbox": { "addDirs": ["~/shared"], "env": ["GOPATH"] },
      "mcp": {
        "docs": { "command": "docs-server", "args": ["--stdio"] },
        "git": { "command": ["git-mcp", "--repo", "."], "timeout_ms": 1000 }
      }
    }`,
    "home/work/app/.skiff/config.json": `{
      "sandbox": { "addDirs": ["../lib"], "env": ["GOPATH", "CARGO_HOME"] },
      "mcp": {
        "docs": { "url": "http://127.0.0.1:9000/mcp" },
        "git": { "enabled": false },
        "from-mcp-json": { "disabled": true }
      }
    }`,
  });
  const loaded = await loadConfig({
    workspace: box.workspace,
    home: box.home,
    env: {},
    flags: { sandbox: { addDirs: ["vendor"] } },
  });
  assertEquals(loaded.config.sandbox?.addDirs, [
    path.join(box.home, "shared"),
    path.join(box.home, "work", "lib"),
    path.join(box.workspace, "vendor"),
  ]);
  assertEquals(loaded.config.sandbox?.env, ["GOPATH", "CARGO_HOME"]);
  assertEquals(loaded.config.mcp, {
    docs: { url: "http://127.0.0.1:9000/mcp" },
    git: { command: ["git-mcp", "--repo", "."], timeout_ms: 1000, enabled: false },
    "from-mcp-json": { disabled: true },
  });
});

Deno.test("config: no files gives an empty config; an empty file is {}; a list is refused", async () => {
  await using box = await sandbox({});
  const none = await loadConfig({ workspace: box.workspace, home: box.home, env: {} });
  assertEquals(none.config, {});
  assertEquals(none.files, []);
  assertEquals(none.layers, []);

  await Deno.writeTextFile(path.join(box.workspace, "skiff.json"), "\n");
  const empty = await loadConfig({ workspace: box.workspace, home: box.home, env: {} });
  assertEquals(empty.config, {});
  assertEquals(empty.files.length, 1);

  await Deno.writeTextFile(path.join(box.workspace, "skiff.json"), "[1]");
  const error = await assertRejects(
    () => loadConfig({ workspace: box.workspace, home: box.home, env: {} }),
    ConfigError,
  );
  assert(error.message.includes("expected an object ({ … }) at the top of the file, got a list"));
});

Deno.test("config: agents, subagents and permission shapes for the policy and agents validate", async () => {
  await using box = await sandbox({
    "home/work/app/skiff.json": `{
      "$schema": "https://example.invalid/skiff.schema.json",
      "models": { "local-7b": { "context": 32768, "output": 4096 } },
      "agent": {
        "review": {
          "description": "Reviews diffs", "mode": "subagent", "temperature": 0.1, "max_turns": 8,
          "tools": { "write": false, "mcp_*": false },
          "permission": { "bash": { "*": "deny", "git diff *": "allow" } }
        }
      },
      "subagents": { "maxDepth": 2 },
      "permission": { "docs_search": "allow", "external_directory": "deny" }
    }`,
  });
  const loaded = await loadConfig({ workspace: box.workspace, home: box.home, env: {} });
  assertEquals(loaded.config.agent?.review.permission, {
    bash: { "*": "deny", "git diff *": "allow" },
  });
  assertEquals(loaded.config.models?.["local-7b"], { context: 32768, output: 4096 });
  assertEquals(loaded.config.subagents?.maxDepth, 2);
  assertEquals(loaded.layers.length, 1);
});
