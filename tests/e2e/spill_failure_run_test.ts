/**
 * A tool output skiff cannot keep, end to end through `skiff run` against the
 * mock. An MCP tool answers with more text than a tool result may hold, so
 * skiff spills it to `<data>/tool-output/`, which here is a file instead of a
 * folder. This used to end the run as an internal error (the harness layer of
 * failure attribution); now the output is cut to its head and tail, the
 * model is told the rest was lost and why, and the run goes on. The control
 * run, with the data folder intact, spills as usual. Run with and without
 * CI=true.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";

/** A stdio MCP server with one tool, `dump`, that answers 40 000 characters. */
const BIG_SERVER = `
const encoder = new TextEncoder();
const send = (message) => Deno.stdout.writeSync(encoder.encode(JSON.stringify(message) + "\\n"));
let buffered = "";
for await (const chunk of Deno.stdin.readable.pipeThrough(new TextDecoderStream())) {
  buffered += chunk;
  for (let newline; (newline = buffered.indexOf("\\n")) >= 0;) {
    const line = buffered.slice(0, newline).trim();
    buffered = buffered.slice(newline + 1);
    if (!line) continue;
    const request = JSON.parse(line);
    if (request.id === undefined) continue;
    const result = request.method === "initialize"
      ? {
        protocolVersion: request.params.protocolVersion,
        capabilities: { tools: {} },
        serverInfo: { name: "big", version: "1" },
      }
      : request.method === "tools/list"
      ? { tools: [{ name: "dump", description: "Prints a long report.", inputSchema: { type: "object", properties: {} } }] }
      : request.method === "tools/call"
      ? { content: [{ type: "text", text: "z".repeat(40000) }] }
      : {};
    send({ jsonrpc: "2.0", id: request.id, result });
  }
}
`;

const SCRIPT: MockTurn[] = [
  { toolCalls: [{ name: "big_dump", arguments: {} }] },
  { text: "the report is long" },
];

async function configureBigServer(sandbox: Sandbox): Promise<void> {
  const server = path.join(sandbox.root, "big_server.js");
  await Deno.writeTextFile(server, BIG_SERVER);
  await Deno.writeTextFile(
    path.join(sandbox.configDir, "config.json"),
    JSON.stringify({
      mcp: { big: { command: Deno.execPath(), args: ["run", "--quiet", server] } },
    }),
  );
}

function completed(stdout: string): Record<string, unknown> {
  const end = parseJsonLines(stdout).filter((event) => event.type === "session.completed").at(-1);
  assert(end, `no session.completed in: ${stdout}`);
  return end;
}

for (const ci of [undefined, "true"]) {
  const env: Record<string, string> = ci ? { CI: ci } : {};
  const label = `CI ${ci ?? "unset"}`;

  Deno.test(`spill failure e2e: a tool output skiff cannot spill is cut, said lost, and the run goes on (${label})`, async () => {
    await withMockSandbox(SCRIPT, async (sandbox, mock) => {
      await configureBigServer(sandbox);
      await Deno.writeTextFile(path.join(sandbox.dataDir, "tool-output"), "not a folder");
      const result = await runSkiff(["run", "--json", "--yes", "make the report"], sandbox, {
        env,
      });
      assertEquals(result.code, 0, result.stderr);
      const events = parseJsonLines(result.stdout);
      const tool = events.find((event) => event.type === "tool.completed");
      assertEquals(tool?.tool, "big_dump", "the MCP tool was called");
      assertEquals(tool?.ok, true);
      assertStringIncludes(String(tool?.output), "lost");
      assertEquals(completed(result.stdout).attribution, undefined);
      assertEquals(mock.requests.length, 2, "the model got the cut output and answered");
      assertStringIncludes(JSON.stringify(mock.requests[1].messages), "could not be saved");
    });
  });

  Deno.test(`spill failure e2e: the same run with the data folder intact spills as usual (${label})`, async () => {
    await withMockSandbox(SCRIPT, async (sandbox) => {
      await configureBigServer(sandbox);
      const result = await runSkiff(["run", "--json", "--yes", "make the report"], sandbox, {
        env,
      });
      assertEquals(result.code, 0, result.stderr);
      assertEquals(completed(result.stdout).attribution, undefined);
      const tool = parseJsonLines(result.stdout).find((event) => event.type === "tool.completed");
      assertEquals(tool?.ok, true);
      assertStringIncludes(String(tool?.output), "truncated", "the output was spilled and cut");
    });
  });
}
