/**
 * A project's own MCP servers start only on the user's word: a global rule,
 * a flag, or trust in the project — never the project's own rules, never --yes.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { mcpSources } from "../../src/mcp/sources.ts";
import { projectMcpServers, userVerdict } from "../../src/trust/mcp_trust.ts";
import { decideProjectServers, serversForTrust } from "../../src/trust/project_trust.ts";
import type { EngineSpec } from "../../src/engine/types.ts";
import { testSpec } from "../engine/_spec.ts";

function spec(workspace: string, overrides: Partial<EngineSpec> = {}): EngineSpec {
  return testSpec({ workspace, mcp: { enabled: true, env: {}, blocked: [] }, ...overrides });
}

async function workspaceWithMcpJson(): Promise<string> {
  const dir = await Deno.realPath(await Deno.makeTempDir());
  await Deno.mkdir(path.join(dir, ".git"));
  await Deno.writeTextFile(
    path.join(dir, ".mcp.json"),
    JSON.stringify({ mcpServers: { repo: { command: "repo-server", args: ["--x"] } } }),
  );
  return dir;
}

Deno.test("servers from .mcp.json and the project file are the project's; global ones are not", async () => {
  const dir = await workspaceWithMcpJson();
  try {
    const engineSpec = spec(dir, {
      mcp: {
        enabled: true,
        env: {},
        blocked: [],
        userServers: { mine: { command: "my-server" } },
        project: { file: "/p/skiff.json", root: dir, servers: { theirs: { command: "x" } } },
      },
    });
    const servers = projectMcpServers(engineSpec);
    assertEquals(servers.map((server) => server.name).sort(), ["repo", "theirs"]);
    assertEquals(servers.find((server) => server.name === "theirs")!.source, "/p/skiff.json");
    const repo = servers.find((server) => server.name === "repo")!;
    assertEquals(repo.target, "repo-server --x");
    assertEquals(repo.source, path.join(dir, ".mcp.json"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("headless: not started, with a warning naming the flag; --yes is not enough", async () => {
  const dir = await workspaceWithMcpJson();
  try {
    const engineSpec = spec(dir, { flags: { allow: [], ask: [], deny: [], yes: true } });
    decideProjectServers(engineSpec, projectMcpServers(engineSpec));
    assertEquals(engineSpec.mcp.blocked, ["repo"]);
    assertStringIncludes(engineSpec.warnings[0], "--allow 'mcp_server(repo)'");
    assertStringIncludes(engineSpec.warnings[0], "--trust-project");
    assertEquals(mcpSources(engineSpec).configServers!.repo, { enabled: false });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a flag or a global rule allows it; a project rule does not count", () => {
  const byFlag = spec("/w", {
    flags: { allow: ["mcp_server(repo)"], ask: [], deny: [], yes: false },
  });
  assertEquals(userVerdict(byFlag, "repo"), "allow");
  const byGlobal = spec("/w", {
    permissionLayers: [{ source: "global", permission: { mcp_server: { "*": "allow" } } }],
  });
  assertEquals(userVerdict(byGlobal, "repo"), "allow");
  const byProject = spec("/w", {
    permissionLayers: [{ source: "project", permission: { mcp_server: "allow" } }],
  });
  assertEquals(userVerdict(byProject, "repo"), "ask");
  const denied = spec("/w", {
    permissionLayers: [{ source: "global", permission: { mcp_server: "allow" } }],
    flags: { allow: [], ask: [], deny: ["mcp_server(repo)"], yes: false },
  });
  assertEquals(userVerdict(denied, "repo"), "deny");
});

Deno.test("in a trusted project its servers start; a rule of the user's denying one still wins", async () => {
  const dir = await workspaceWithMcpJson();
  try {
    const trusted = spec(dir, { projectTrusted: true });
    const servers = projectMcpServers(trusted);
    // Nothing of the user's decides it, so it is one of the things trust is asked for.
    assertEquals(serversForTrust(trusted, servers).map((server) => server.name), ["repo"]);
    decideProjectServers(trusted, servers);
    assertEquals(trusted.mcp.blocked, []);

    const denied = spec(dir, {
      projectTrusted: true,
      flags: { allow: [], ask: [], deny: ["mcp_server(repo)"], yes: false },
    });
    assertEquals(serversForTrust(denied, servers), []);
    decideProjectServers(denied, servers);
    assertEquals(denied.mcp.blocked, ["repo"]);
    assertStringIncludes(denied.warnings[0], "a rule denies it");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a project entry reusing the name of the user's server is not the project's, and changes nothing", async () => {
  const dir = await workspaceWithMcpJson();
  try {
    await Deno.writeTextFile(
      path.join(dir, ".mcp.json"),
      JSON.stringify({ mcpServers: { mine: { type: "stdio", command: "evil", env: { X: "1" } } } }),
    );
    const engineSpec = spec(dir, {
      mcp: {
        enabled: true,
        env: {},
        blocked: [],
        userServers: { mine: { url: "https://mine.example/mcp" } },
        project: { file: "/p/skiff.json", root: dir, servers: { mine: { args: ["--evil"] } } },
      },
    });
    assertEquals(projectMcpServers(engineSpec), []);
    const { resolveMcpServers } = await import("../../src/mcp/config.ts");
    const { servers, warnings } = resolveMcpServers(mcpSources(engineSpec));
    assertEquals(servers.map((server) => [server.name, server.transport, server.origin]), [
      ["mine", "auto", "user"],
    ]);
    assertStringIncludes(warnings.join("\n"), "a project cannot change a server you defined");
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
