/**
 * `skiff mcp serve --http` serves one session per client, several at once:
 * two SDK clients connected together each get their own MCP session and
 * skiff session and both work; one ending its session (DELETE) leaves the
 * other working, a request on the ended session is a 404, and a third
 * client connects afterwards.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import {
  assert,
  assertEquals,
  assertNotEquals,
  assertStringIncludes,
} from "../../support/assert.ts";
import { makeSandbox, spawnSkiff } from "../../support/cli.ts";
import { toolText } from "../../support/mcp_serve_client.ts";

Deno.test("mcp serve --http: one session per client, several at once; an ended one is gone, a new one comes", async () => {
  const sandbox = await makeSandbox();
  const child = spawnSkiff(["mcp", "serve", "--http", "0"], sandbox);
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  let seen = "";
  const readUntil = async (pattern: RegExp) => {
    while (!pattern.test(seen)) {
      const { value, done } = await reader.read();
      if (done) throw new Error(`skiff mcp serve ended before ${pattern}: ${seen}`);
      seen += value;
    }
  };
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/c.txt`, "shared file\n");
    await readUntil(/token: [0-9a-f]{64}/);
    const url = new URL(/url: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(seen)![1]);
    const token = /token: ([0-9a-f]{64})/.exec(seen)![1];
    const headers = { authorization: `Bearer ${token}` };
    const connect = async (name: string) => {
      const transport = new StreamableHTTPClientTransport(url, { requestInit: { headers } });
      const client = new Client({ name, version: "1" });
      await client.connect(transport);
      return { client, transport };
    };

    const first = await connect("first");
    const second = await connect("second");
    const firstId = first.transport.sessionId!;
    const secondId = second.transport.sessionId!;
    assert(firstId && secondId);
    assertNotEquals(firstId, secondId);
    for (const { client } of [first, second]) {
      const read = await client.callTool({ name: "read", arguments: { file_path: "c.txt" } });
      assertStringIncludes(toolText(read), "shared file");
    }
    await readUntil(new RegExp(`client session ${secondId}: skiff session ses_`));
    const skiffSession = (mcp: string) =>
      new RegExp(`client session ${mcp}: skiff session (ses_[A-Za-z0-9]+)`).exec(seen)![1];
    assertNotEquals(skiffSession(firstId), skiffSession(secondId));

    await first.transport.terminateSession();
    await first.client.close();
    const gone = await fetch(url, {
      method: "POST",
      headers: {
        ...headers,
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "mcp-session-id": firstId,
        "mcp-protocol-version": "2025-06-18",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 9, method: "tools/list" }),
    });
    assertEquals(gone.status, 404);
    await gone.body?.cancel();
    await readUntil(new RegExp(`client session ${firstId} ended`));

    const still = await second.client.callTool({
      name: "read",
      arguments: { file_path: "c.txt" },
    });
    assertStringIncludes(toolText(still), "shared file");
    const third = await connect("third");
    const names = (await third.client.listTools()).tools.map((tool: { name: string }) => tool.name);
    assert(names.includes("read"));
    await third.client.close();
    await second.client.close();
  } finally {
    // It stops on SIGTERM, with its clients' event streams still open, within a bound.
    child.kill("SIGTERM");
    let timer: ReturnType<typeof setTimeout> | undefined;
    const stopped = await Promise.race([
      child.status.then(() => true),
      new Promise<boolean>((resolve) => timer = setTimeout(() => resolve(false), 10_000)),
    ]);
    clearTimeout(timer);
    if (!stopped) {
      child.kill("SIGKILL");
      await child.status;
    }
    await reader.cancel().catch(() => {});
    await sandbox.cleanup();
    assert(stopped, "skiff mcp serve --http did not stop within 10 s of SIGTERM");
  }
});
