/**
 * `prepare()` reads each config file once, also when the project is not
 * trusted and its allow rules must be taken out: a project file that changes
 * while skiff starts cannot give a view that is half one version, half the
 * other.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { prepare } from "../../src/host/setup.ts";
import { McpManager } from "../../src/mcp/manager.ts";

Deno.test("prepare reads the project file once and keeps to that reading", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-config-once-" });
  const configDir = path.join(root, "config");
  const workspace = path.join(root, "repo");
  await Deno.mkdir(configDir);
  await Deno.mkdir(workspace);
  const projectFile = path.join(workspace, "skiff.json");
  const first = JSON.stringify({
    provider: { model: "first-model" },
    permission: { bash: { "git *": "allow", "rm *": "deny" } },
  });
  await Deno.writeTextFile(projectFile, first);
  // What the file says if it is read again: another model, and an allow it had not.
  const second = JSON.stringify({
    provider: { model: "second-model" },
    permission: { bash: "allow", edit: "allow" },
  });
  const reads: string[] = [];
  const readTextFile = (file: string) => {
    reads.push(file);
    const earlier = reads.filter((read) => read === file).length > 1;
    return file === projectFile && earlier ? Promise.resolve(second) : Deno.readTextFile(file);
  };
  const saved = Deno.env.get("SKIFF_CONFIG_DIR");
  Deno.env.set("SKIFF_CONFIG_DIR", configDir);
  try {
    const { spec, config } = await prepare({ dir: workspace }, false, undefined, { readTextFile });
    assertEquals(reads.filter((file) => file === projectFile).length, 1);
    assertEquals(spec.model, "first-model");
    // Untrusted: the allow is gone, the deny stays, and the user is told.
    assertEquals(config.permission, { bash: { "rm *": "deny" } });
    assertEquals(spec.projectTrusted, false);
    assertStringIncludes(spec.warnings.join("\n"), "bash(git *)");
  } finally {
    if (saved === undefined) Deno.env.delete("SKIFF_CONFIG_DIR");
    else Deno.env.set("SKIFF_CONFIG_DIR", saved);
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("MCP servers are resolved once, in prepare, and the MCP client starts that list", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-config-once-" });
  const configDir = path.join(root, "config");
  const workspace = path.join(root, "repo");
  await Deno.mkdir(configDir);
  await Deno.mkdir(workspace);
  await Deno.writeTextFile(
    path.join(configDir, "config.json"),
    JSON.stringify({ mcp: { notes: { command: ["notes-server", "--stdio"], enabled: false } } }),
  );
  const saved = Deno.env.get("SKIFF_CONFIG_DIR");
  Deno.env.set("SKIFF_CONFIG_DIR", configDir);
  try {
    const { spec } = await prepare({ dir: workspace }, false);
    const resolved = spec.mcp.resolved;
    assertEquals(
      resolved?.servers.map((server) => [
        server.name,
        server.enabled,
        server.transport === "stdio" ? [server.command, ...server.args] : server.url,
      ]),
      [["notes", false, ["notes-server", "--stdio"]]],
    );
    // It crosses into the Worker as it is.
    assertEquals(structuredClone(spec), spec);
    // The client starts the host's list; the raw entries beside it are not resolved again.
    const manager = new McpManager({
      workspace,
      servers: { other: { command: "other-server" } },
      readMcpJson: false,
      resolved: { servers: resolved!.servers, warnings: ["from the host"] },
    });
    const { warnings } = await manager.start();
    assertEquals(warnings, ["from the host"]);
    assertEquals(manager.status().map((server) => server.name), ["notes"]);
    await manager.close();
  } finally {
    if (saved === undefined) Deno.env.delete("SKIFF_CONFIG_DIR");
    else Deno.env.set("SKIFF_CONFIG_DIR", saved);
    await Deno.remove(root, { recursive: true });
  }
});
