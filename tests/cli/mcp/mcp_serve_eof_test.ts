/**
 * `skiff mcp serve` over stdio ends when its client closes stdin: the MCP
 * SDK's client closing its transport, and a raw pipe closed after one
 * request. The server says why on stderr and exits on its own, well before
 * the SDK's client would send SIGTERM (2 s after closing stdin).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { MAIN, makeSandbox } from "../../support/cli.ts";
import { mcpServeClient } from "../../support/mcp_serve_client.ts";

const STOPPING = "the client closed stdin; stopping.";

/** Whether a process with this id is still there (not yet reaped counts as there). */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    return !/^\d+ \(.*\) Z /.test(stat);
  } catch {
    return false;
  }
}

Deno.test("mcp serve exits when the SDK client closes its transport", async () => {
  const sandbox = await makeSandbox();
  try {
    const { client, close, transport, stderr } = await mcpServeClient(sandbox);
    const pid = transport.pid!;
    assert((await client.listTools()).tools.length > 0);
    const started = Date.now();
    await close();
    const took = Date.now() - started;
    assertStringIncludes(stderr(), STOPPING);
    // SDK: SIGTERM only when the server is still there 2 s after stdin closed.
    assert(took < 2000, `closing took ${took} ms: the server did not end on EOF`);
    assertEquals(alive(pid), false);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("mcp serve exits when a raw pipe on its stdin is closed, after answering", async () => {
  const sandbox = await makeSandbox();
  const server = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "--unstable-worker-options", "--no-prompt", MAIN, "mcp", "serve"],
    cwd: sandbox.workspace,
    env: sandbox.env,
    clearEnv: true,
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stderr = new Response(server.stderr).text();
  const writer = server.stdin.getWriter();
  const initialize = {
    jsonrpc: "2.0",
    id: 1,
    method: "initialize",
    params: {
      protocolVersion: "2025-06-18",
      capabilities: {},
      clientInfo: { name: "raw-pipe", version: "1" },
    },
  };
  await writer.write(new TextEncoder().encode(JSON.stringify(initialize) + "\n"));
  const reader = server.stdout.pipeThrough(new TextDecoderStream()).getReader();
  let out = "";
  while (!out.includes("\n")) {
    const { value, done } = await reader.read();
    if (done) break;
    out += value;
  }
  assertStringIncludes(out, '"serverInfo"');
  await writer.close();
  const timer = setTimeout(() => server.kill("SIGKILL"), 15_000);
  const status = await server.status;
  clearTimeout(timer);
  await reader.cancel().catch(() => {});
  const err = await stderr;
  try {
    assertEquals(status.signal, null, "killed: the server did not end on EOF");
    assertEquals(status.code, 0, err);
    assertStringIncludes(err, STOPPING);
  } finally {
    await sandbox.cleanup();
  }
});
