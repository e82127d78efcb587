/**
 * End-to-end through `skiff run`: the plan agent cannot change files, and
 * a real MCP server's tools reach the model with their schemas and run from
 * inside the engine's Worker, under the policy table.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import { hasEverything, projectStdioServer } from "../mcp/everything.ts";

type Request = {
  messages: { role: string; content: string }[];
  tools?: { function: { name: string; parameters: Record<string, unknown> } }[];
};

/** The project's own server entry: it starts only with START_SERVER (or a yes at a terminal). */
const START_SERVER = ["--allow", "mcp_server(everything)"];

async function addEverything(
  sandbox: Sandbox,
  file: "skiff.json" | ".mcp.json",
  options: { commandAsList?: boolean } = {},
): Promise<void> {
  const { command, args, ...rest } = projectStdioServer({
    env: { DENO_DIR: sandbox.env.DENO_DIR },
  });
  const server = options.commandAsList
    ? { ...rest, command: [command, ...(args as string[])] }
    : { ...rest, command, args };
  const servers = { everything: server };
  await Deno.writeTextFile(
    `${sandbox.workspace}/${file}`,
    JSON.stringify(file === "skiff.json" ? { mcp: servers } : { mcpServers: servers }),
  );
}

Deno.test("a plan run cannot edit, write or remove files", async () => {
  await withMockSandbox([
    {
      toolCalls: [
        { name: "edit", arguments: { file_path: "a.txt", old_string: "a", new_string: "b" } },
        { name: "bash", arguments: { command: "rm a.txt" } },
        { name: "bash", arguments: { command: "git status" } },
      ],
    },
    { text: "I only planned." },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
    await new Deno.Command("git", { args: ["init", "-q"], cwd: sandbox.workspace }).output();
    const result = await runSkiff(
      ["run", "--json", "--agent", "plan", "--yes", "change a"],
      sandbox,
    );
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "a\n");
    const names = ((mock.requests[0] as Request).tools ?? []).map((tool) => tool.function.name);
    for (const forbidden of ["edit", "write", "apply_patch"]) {
      assertEquals(names.includes(forbidden), false, `${forbidden} is not offered to plan`);
    }
    const results = (mock.requests[1] as Request).messages.filter((m) => m.role === "tool");
    assertStringIncludes(results[0].content, "not_found");
    assertStringIncludes(results[1].content, "denied");
    assert(!results[2].content.includes("denied"), "read-only git status is allowed");
    assertEquals(result.code, 3, "the denied rm is reported");
    const completed = parseJsonLines(result.stdout).at(-1)!;
    assertEquals((completed.denials as unknown[]).length, 1);
  });
});

Deno.test({
  name: "an MCP server's tool runs from a skiff run, allowed by a rule",
  ignore: !hasEverything,
  async fn() {
    await withMockSandbox([
      { toolCalls: [{ name: "everything_echo", arguments: { message: "ping from the model" } }] },
      { text: "echoed" },
    ], async (sandbox, mock) => {
      await addEverything(sandbox, "skiff.json");
      const result = await runSkiff(
        ["run", "--json", ...START_SERVER, "--allow", "everything_echo", "echo something"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stdout + result.stderr);
      const echo = ((mock.requests[0] as Request).tools ?? [])
        .find((tool) => tool.function.name === "everything_echo");
      assert(echo, "the MCP tool is offered");
      assertStringIncludes(JSON.stringify(echo.function.parameters), "message");
      const toolMessage = (mock.requests[1] as Request).messages.find((m) => m.role === "tool")!;
      assertStringIncludes(toolMessage.content, "ping from the model");
    });
  },
});

Deno.test({
  name: "an MCP tool is denied in a headless run without a rule",
  ignore: !hasEverything,
  async fn() {
    await withMockSandbox([
      { toolCalls: [{ name: "everything_echo", arguments: { message: "x" } }] },
      { text: "denied" },
    ], async (sandbox) => {
      await addEverything(sandbox, "skiff.json");
      const result = await runSkiff(["run", "--json", ...START_SERVER, "echo"], sandbox);
      assertEquals(result.code, 3, result.stderr);
      const completed = parseJsonLines(result.stdout).at(-1)!;
      assertEquals((completed.denials as { tool: string }[])[0].tool, "everything_echo");
    });
  },
});

Deno.test({
  name: "an MCP server from .mcp.json alone (command as a list) runs from a skiff run",
  ignore: !hasEverything,
  async fn() {
    await withMockSandbox([
      { toolCalls: [{ name: "everything_echo", arguments: { message: "ping via mcp.json" } }] },
      { text: "echoed" },
    ], async (sandbox, mock) => {
      await addEverything(sandbox, ".mcp.json", { commandAsList: true });
      const result = await runSkiff(
        ["run", "--json", ...START_SERVER, "--allow", "everything_echo", "echo something"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stdout + result.stderr);
      const toolMessage = (mock.requests[1] as Request).messages.find((m) => m.role === "tool")!;
      assertStringIncludes(toolMessage.content, "ping via mcp.json");
    });
  },
});

Deno.test({
  name: "a server the project defines does not start without the user's word, even with --yes",
  ignore: !hasEverything,
  async fn() {
    await withMockSandbox([{ text: "no tools" }], async (sandbox, mock) => {
      await addEverything(sandbox, ".mcp.json");
      const result = await runSkiff(["run", "--json", "--yes", "hello"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      const names = ((mock.requests[0] as Request).tools ?? []).map((tool) => tool.function.name);
      assertEquals(names.some((name) => name.startsWith("everything_")), false);
      const warning = parseJsonLines(result.stdout).find((event) =>
        event.type === "warning" && String(event.message).includes("everything")
      );
      assert(warning, "a warning names the server");
      assertStringIncludes(String(warning.message), "--allow 'mcp_server(everything)'");
    });
  },
});
