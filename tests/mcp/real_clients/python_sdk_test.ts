/**
 * The Python MCP SDK (pip `mcp`, pinned in prerequisites.ts) on both sides
 * of skiff: its `Client` using `skiff mcp serve` over stdio and over
 * streamable HTTP (python_client.py: tools with annotations, a read, a
 * refused call, a long call cancelled while other calls go on, two clients
 * at once each with its own session), and a server written with its
 * `MCPServer` (python_server.py) configured in skiff: `skiff mcp list` shows
 * its tools and a scripted model's `skiff run` calls one.
 */
import * as path from "node:path";
import { fileURLToPath } from "node:url";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import {
  makeSandbox,
  runInWorkspace,
  runSkiff,
  type Sandbox,
  withMockSandbox,
} from "../../support/cli.ts";
import { pythonWithMcp, skiffServeCommand, startHttpServe } from "./prerequisites.ts";

const here = path.dirname(fileURLToPath(import.meta.url));
const NOTE = "python was here\n";

/** Runs python_client.py with `settings`; what it printed. */
async function pythonClient(
  sandbox: Sandbox,
  settings: Record<string, unknown>,
): Promise<Record<string, unknown>> {
  const python = await pythonWithMcp();
  // A length of sleep no other process on the machine is running.
  const marker = `${20 + Math.floor(Math.random() * 9000) / 1000}`;
  const { code, stdout, stderr } = await runInWorkspace(
    python,
    [path.join(here, "python_client.py"), JSON.stringify({ marker, ...settings })],
    sandbox,
    { signal: AbortSignal.timeout(120_000) },
  );
  assertEquals(code, 0, `python_client.py failed:\n${stdout}\n${stderr}`);
  const seen = JSON.parse(stdout.trim().split("\n").at(-1)!);
  const timings = Object.entries(seen).filter(([key]) => key.endsWith("_s"));
  console.log(`python_client.py (${settings.transport}) seconds:`, Object.fromEntries(timings));
  return seen;
}

/** A long call was cancelled: it stopped at once with its process, and calls went on meanwhile. */
function assertCancelled(seen: Record<string, unknown>): void {
  const seconds = (key: string) => seen[key] as number;
  assert(seconds("sleep_started_s") >= 0, "the long bash call never started its sleep");
  assertStringIncludes(String(seen.read_during_call), NOTE.trim());
  assert(
    seconds("read_during_call_s") < 5,
    `a read waited ${seen.read_during_call_s} s for the long call`,
  );
  assert(seen.long_call_finished == null, `the long call finished: ${seen.long_call_finished}`);
  assert(seconds("call_ended_s") < 5, `the cancelled call took ${seen.call_ended_s} s to end`);
  assertStringIncludes(String(seen.read_after_cancel), NOTE.trim());
  assert(seconds("read_after_cancel_s") < 5, `the next read waited ${seen.read_after_cancel_s} s`);
  assert(seconds("sleep_gone_s") >= 0, "the cancelled call's sleep is still running");
}

Deno.test("Python SDK client over stdio: annotated tools, read, a refused call, a cancelled call that blocks nothing", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), NOTE);
    const { command, args } = skiffServeCommand(["--allow", "bash(sleep *)"]);
    const seen = await pythonClient(sandbox, {
      transport: "stdio",
      command,
      args,
      env: sandbox.env,
      cwd: sandbox.workspace,
    });
    const tools = seen.tools as Record<string, Record<string, unknown>>;
    assertEquals(tools.read.title, "Read a file");
    assertEquals(tools.read.read_only_hint, true);
    assertEquals(tools.bash.destructive_hint, true);
    assertStringIncludes(String(seen.read), NOTE.trim());
    const refused = seen.refused as { is_error: boolean; text: string };
    assertEquals(refused.is_error, true);
    assertStringIncludes(refused.text, "denied");
    assert(await Deno.stat(path.join(sandbox.workspace, "notes.txt")), "the refused rm ran");
    assertCancelled(seen);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("Python SDK clients over HTTP: two at once, each its own session; a cancelled call blocks nothing", async () => {
  const sandbox = await makeSandbox();
  const server = await startHttpServe(sandbox, ["--allow", "bash(sleep *)"]);
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), NOTE);
    const seen = await pythonClient(sandbox, {
      transport: "http",
      url: server.url,
      token: server.token,
    });
    assertStringIncludes(String(seen.first_read), NOTE.trim());
    assertStringIncludes(String(seen.second_read), NOTE.trim());
    assertCancelled(seen);
    // Both sessions were opened apart and ended by the SDK (DELETE) when the clients closed.
    const stderr = await server.stderrUntil(/(ended \(skiff session[^]*){2}/);
    const opened = [...stderr.matchAll(/client session (\S+): skiff session (ses_\w+)/g)];
    assertEquals(opened.length, 2, stderr);
    assert(opened[0][1] !== opened[1][1] && opened[0][2] !== opened[1][2], stderr);
  } finally {
    await server.stop();
    await sandbox.cleanup();
  }
});

Deno.test("skiff as a client of a Python SDK server: mcp list shows its tools; a scripted run calls one", async () => {
  const python = await pythonWithMcp();
  const server = { command: python, args: [path.join(here, "python_server.py")] };
  const script = [
    { toolCalls: [{ name: "pytools_shout", arguments: { text: "hello from skiff" } }] },
    { text: "It shouted back." },
  ];
  await withMockSandbox(script, async (sandbox, mock) => {
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ mcp: { pytools: server } }),
    );
    const listed = await runSkiff(["mcp", "list"], sandbox);
    assertEquals(listed.code, 0, listed.stderr);
    assertStringIncludes(listed.stdout, "pytools (stdio, config): connected");
    assertStringIncludes(listed.stdout, "pytools_shout  Returns the text in capitals");
    assertStringIncludes(listed.stdout, "pytools_add  Adds two whole numbers");

    const run = await runSkiff(["run", "--allow", "pytools_*", "shout it"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(mock.requests.length, 2);
    const offered = (mock.requests[0].tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assert(offered.includes("pytools_shout"), `offered: ${offered}`);
    const messages = mock.requests[1].messages as { role: string; content: unknown }[];
    const answer = messages.find((message) => message.role === "tool");
    assertStringIncludes(JSON.stringify(answer?.content), "HELLO FROM SKIFF!");
  });
});
