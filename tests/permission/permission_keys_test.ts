/**
 * A permission key that means nothing (`"bassh"`) would be a rule that never
 * matches: a deny that protects nothing. Config files, agent entries, agent
 * files and `--allow`/`--ask`/`--deny` refuse it with a suggestion, and still
 * take built-in keys, MCP tool names (`{server}_{tool}`) and wildcard keys.
 */
import * as path from "node:path";
import {
  assert,
  assertEquals,
  assertRejects,
  assertStringIncludes,
  assertThrows,
} from "../support/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { ConfigError } from "../../src/config/errors.ts";
import { parsePermissionFlag } from "../../src/permission/flags.ts";
import { loadAgents } from "../../src/definitions/agents/load.ts";
import { loadFrontmatterParser } from "../../src/definitions/frontmatter.ts";
import { makeSandbox, runSkiff } from "../support/cli.ts";

// loadAgents parses frontmatter with a parser loaded beforehand (src/definitions/frontmatter.ts).
await loadFrontmatterParser();

async function withWorkspace(work: (root: string, workspace: string) => Promise<void>) {
  const root = await Deno.makeTempDir({ prefix: "skiff-permission-keys-" });
  const workspace = path.join(root, "work");
  await Deno.mkdir(workspace, { recursive: true });
  try {
    await work(root, workspace);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

async function configError(permission: unknown, where: "permission" | "agent" = "permission") {
  let error: ConfigError | undefined;
  await withWorkspace(async (root, workspace) => {
    const config = where === "permission"
      ? { permission }
      : { agent: { reviewer: { permission } } };
    await Deno.writeTextFile(path.join(workspace, "skiff.json"), JSON.stringify(config));
    error = await assertRejects(
      () => loadConfig({ workspace, home: root, env: {} }),
      ConfigError,
    ) as ConfigError;
  });
  return error!;
}

Deno.test("config: an unknown permission key is an error with a suggestion", async () => {
  const error = await configError({ bassh: "allow", read: "allow" });
  assertEquals(error.exitCode, 2);
  assertStringIncludes(error.message, "skiff.json");
  assertStringIncludes(error.message, 'permission.bassh: unknown permission key "bassh"');
  assertStringIncludes(error.message, 'did you mean "bash"?');
});

Deno.test("config: a near miss of a built-in key with '_' is not taken for an MCP tool", async () => {
  const error = await configError({ external_directry: "deny" });
  assertStringIncludes(error.message, 'did you mean "external_directory"?');
});

Deno.test("config: another agent's tool names point to skiff's key", async () => {
  const write = await configError({ write: "deny" });
  assertStringIncludes(write.message, '"edit"');
  const mcp = await configError({ mcp__github__create_issue: "deny" });
  assertStringIncludes(mcp.message, '"github_create_issue"');
  const nothingClose = await configError({ zzz: "deny" });
  assertStringIncludes(nothingClose.message, "{server}_{tool}");
});

Deno.test("config: an agent entry's permission key is checked too", async () => {
  const error = await configError({ edti: "deny" }, "agent");
  assertStringIncludes(error.message, "agent.reviewer.permission.edti");
  assertStringIncludes(error.message, 'did you mean "edit"?');
});

Deno.test("config: built-in keys, MCP tool names and wildcard keys load", async () => {
  await withWorkspace(async (root, workspace) => {
    const permission = {
      bash: { "*": "ask", "git status": "allow" },
      external_directory: "deny",
      doom_loop: "ask",
      github_create_issue: "deny",
      "github_*": "ask",
      "*": "ask",
      my_server_do_thing: "allow",
    };
    await Deno.writeTextFile(
      path.join(workspace, "skiff.json"),
      JSON.stringify({ permission, agent: { reviewer: { permission: { task: "deny" } } } }),
    );
    const loaded = await loadConfig({ workspace, home: root, env: {} });
    assertEquals(loaded.config.permission?.github_create_issue, "deny");
    assertEquals(loaded.config.permission?.["github_*"], "ask");
  });
});

Deno.test("--allow 'bassh(ls)' is refused with a suggestion; MCP names and wildcards pass", () => {
  assertThrows(() => parsePermissionFlag("bassh(ls)"), Error, 'did you mean "bash"?');
  assertThrows(() => parsePermissionFlag("Webfetch"), Error, 'did you mean "webfetch"?');
  assertEquals(parsePermissionFlag("github_create_issue").key, "github_create_issue");
  assertEquals(parsePermissionFlag("github_*").key, "github_*");
});

Deno.test("agent file: an unknown permission key skips the agent with file, line and suggestion", async () => {
  await withWorkspace(async (root, workspace) => {
    const file = path.join(workspace, ".skiff", "agents", "audit.md");
    await Deno.mkdir(path.dirname(file), { recursive: true });
    await Deno.writeTextFile(
      file,
      "---\ndescription: Audits\npermission:\n  edit: deny\n  bassh: deny\n---\nAudit.\n",
    );
    const { agents, warnings } = loadAgents({
      workspace,
      home: root,
      configDir: path.join(root, "config"),
    });
    assert(!agents.some((agent) => agent.name === "audit"), "the agent was loaded anyway");
    const warning = warnings.find((line) => line.includes(file));
    assert(warning, `no warning names ${file}: ${warnings.join("\n")}`);
    assertStringIncludes(warning, 'did you mean "bash"?');
  });
});

Deno.test("skiff run: --allow 'bassh(ls)' and a config key 'bassh' exit 2 before any model call", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1", SKIFF_MODEL: "m" });
  try {
    const flag = await runSkiff(["run", "--allow", "bassh(ls)", "hi"], sandbox);
    assertEquals(flag.code, 2, flag.stderr);
    assertStringIncludes(flag.stderr, 'did you mean "bash"?');
    await Deno.writeTextFile(
      path.join(sandbox.workspace, "skiff.json"),
      JSON.stringify({ permission: { bassh: "deny" } }),
    );
    const config = await runSkiff(["run", "hi"], sandbox);
    assertEquals(config.code, 2, config.stderr);
    assertStringIncludes(config.stderr, "permission.bassh");
    assertStringIncludes(config.stderr, 'did you mean "bash"?');
  } finally {
    await sandbox.cleanup();
  }
});
