/**
 * `skiff mcp serve` driven by the MCP SDK's own client, over stdio and over
 * HTTP: the tools it lists, a read, an edit taken back by `skiff undo`, a
 * bash call refused with the `--allow` rule that works (then passed exactly
 * as printed), and the bearer token HTTP requires.
 */
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff, spawnSkiff } from "../../support/cli.ts";
import {
  mcpServeClient as stdioClient,
  toolText as textOf,
} from "../../support/mcp_serve_client.ts";
import { builtinTools } from "../../../src/tools/registry.ts";

type ToolText = { content: { type: string; text: string }[]; isError?: boolean };

Deno.test("mcp serve over stdio: lists the registry's tools and memory tools, reads, edits with undo, refuses bash with a working --allow", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "hello\nworld\n");
    const { client, close } = await stdioClient(sandbox);
    let sessionId = "";
    try {
      const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      for (const tool of builtinTools()) {
        assert(names.includes(tool.name), `${tool.name} not offered`);
      }
      for (
        const name of [
          "remember",
          "harness_status",
          "harness_handoff",
          "harness_record",
          "harness_verify",
        ]
      ) {
        assert(names.includes(name), `${name} not offered`);
      }
      const read = await client.callTool({ name: "read", arguments: { file_path: "a.txt" } });
      assertStringIncludes(textOf(read), "hello");
      const edit = await client.callTool({
        name: "edit",
        arguments: { file_path: "a.txt", old_string: "world", new_string: "there" },
      });
      assertEquals((edit as ToolText).isError ?? false, false, textOf(edit));
      assertEquals(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "hello\nthere\n");

      const bash = await client.callTool({ name: "bash", arguments: { command: "echo hi" } });
      assertEquals((bash as ToolText).isError, true);
      const text = textOf(bash);
      assertStringIncludes(text, "denied:");
      const rule = /--allow '([^']+)'/.exec(text)?.[1];
      assert(rule, `no --allow rule in: ${text}`);
      assertEquals(rule, "bash(echo hi *)");
      const status = await client.callTool({ name: "harness_status", arguments: {} });
      assertStringIncludes(textOf(status), "Objective:");
    } finally {
      await close();
    }
    const sessions = await runSkiff(["sessions", "list", "--json"], sandbox);
    sessionId = /ses_[A-Za-z0-9]+/.exec(sessions.stdout)?.[0] ?? "";
    assert(sessionId, sessions.stdout + sessions.stderr);
    const undo = await runSkiff(["undo", "--session", sessionId], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/a.txt`), "hello\nworld\n");

    // The rule, passed exactly as printed, lets the call through.
    const allowed = await stdioClient(sandbox, ["--allow", "bash(echo hi *)"]);
    try {
      const bash = await allowed.client.callTool({
        name: "bash",
        arguments: { command: "echo hi" },
      });
      const text = textOf(bash);
      if ((bash as ToolText).isError && /sandbox|bwrap|unsandboxed/i.test(text)) {
        console.warn(
          `WARNING: bash could not run in this machine's sandbox, so only the policy part is proven: ${text}`,
        );
        assertEquals(text.includes("--allow 'bash(echo hi *)'"), false, text);
      } else {
        assertEquals((bash as ToolText).isError ?? false, false, text);
        assertStringIncludes(text, "hi");
      }
    } finally {
      await allowed.close();
    }
  } finally {
    await sandbox.cleanup();
  }
});

async function readUntil(reader: ReadableStreamDefaultReader<string>, pattern: RegExp) {
  let seen = "";
  while (!pattern.test(seen)) {
    const { value, done } = await reader.read();
    if (done) throw new Error(`skiff mcp serve ended before printing ${pattern}: ${seen}`);
    seen += value;
  }
  return seen;
}

Deno.test("mcp serve over HTTP: 127.0.0.1 only, the printed token is required, then tools work", async () => {
  const sandbox = await makeSandbox();
  const child = spawnSkiff(["mcp", "serve", "--http", "0"], sandbox);
  const reader = child.stderr.pipeThrough(new TextDecoderStream()).getReader();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/b.txt`, "over http\n");
    const banner = await readUntil(reader, /token: [0-9a-f]{64}/);
    const url = /url: (http:\/\/127\.0\.0\.1:\d+\/mcp)/.exec(banner)![1];
    const token = /token: ([0-9a-f]{64})/.exec(banner)![1];

    const bare = await fetch(url, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
      },
      body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
    });
    assertEquals(bare.status, 401);
    await bare.body?.cancel();
    const wrong = new Client({ name: "wrong", version: "1" });
    let refused = false;
    try {
      await wrong.connect(
        new StreamableHTTPClientTransport(new URL(url), {
          requestInit: { headers: { authorization: `Bearer ${"0".repeat(64)}` } },
        }),
      );
    } catch {
      refused = true;
    }
    assert(refused, "a wrong token must not connect");

    const client = new Client({ name: "right", version: "1" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(url), {
        requestInit: { headers: { authorization: `Bearer ${token}` } },
      }),
    );
    try {
      const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      assert(names.includes("read") && names.includes("remember"));
      const read = await client.callTool({ name: "read", arguments: { file_path: "b.txt" } });
      assertStringIncludes(textOf(read), "over http");
    } finally {
      await client.close();
    }
  } finally {
    child.kill("SIGTERM");
    await child.status;
    await reader.cancel().catch(() => {});
    await sandbox.cleanup();
  }
});

Deno.test("mcp serve refuses a non-loopback --host and a bad port", async () => {
  const sandbox = await makeSandbox();
  try {
    const host = await runSkiff(["mcp", "serve", "--http", "0", "--host", "0.0.0.0"], sandbox);
    assertEquals(host.code, 2, host.stderr);
    assertStringIncludes(host.stderr, "not a loopback address");
    const port = await runSkiff(["mcp", "serve", "--http", "http"], sandbox);
    assertEquals(port.code, 2, port.stderr);
    assertStringIncludes(port.stderr, "expected a port number");
  } finally {
    await sandbox.cleanup();
  }
});
