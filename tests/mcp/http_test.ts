import assert from "node:assert/strict";
import { McpManager } from "../../src/mcp/manager.ts";
import { type ToolContext, ToolError } from "../../src/tools/tool.ts";
import { freePort, hasEverything, REPO_ROOT, startHttpServer, stopProcess } from "./everything.ts";

const ignore = !hasEverything;

function context(): ToolContext {
  return { signal: new AbortController().signal, workspace: REPO_ROOT } as ToolContext;
}

async function startManager(url: string, extra: Record<string, unknown> = {}) {
  const manager = new McpManager({
    workspace: REPO_ROOT,
    servers: { remote: { url, ...extra } },
    readMcpJson: false,
    connectTimeoutMs: 20_000,
  });
  const { warnings } = await manager.start();
  return { manager, warnings };
}

function tool(manager: McpManager, name: string) {
  const found = manager.tools().find((candidate) => candidate.name === name);
  assert.ok(found, `tool ${name} among ${manager.tools().map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test({
  name: "streamable HTTP: lists tools and calls echo",
  ignore,
  async fn() {
    const port = freePort();
    const server = await startHttpServer(port);
    const { manager, warnings } = await startManager(`http://127.0.0.1:${port}/mcp`, {
      type: "http",
    });
    try {
      assert.deepEqual(warnings, []);
      const [status] = manager.status();
      assert.equal(status.state, "connected");
      assert.equal(status.transport, "http");
      const result = await tool(manager, "remote_echo").execute(
        { message: "over http" },
        context(),
      );
      assert.match(result.output, /over http/);
      const sum = await tool(manager, "remote_get-sum").execute({ a: 2, b: 40 }, context());
      assert.match(sum.output, /42/);
    } finally {
      await manager.close();
      await stopProcess(server);
    }
  },
});

Deno.test({
  name: "streamable HTTP: a crashed server is a tool error; once it is back, calls work again",
  ignore,
  async fn() {
    const port = freePort();
    let server = await startHttpServer(port);
    const { manager } = await startManager(`http://127.0.0.1:${port}/mcp`, { timeout_ms: 30_000 });
    try {
      const long = tool(manager, "remote_trigger-long-running-operation")
        .execute({ duration: 20, steps: 20 }, context());
      await new Promise((resolve) => setTimeout(resolve, 500));
      await stopProcess(server);
      const killedAt = Date.now();
      await assert.rejects(long, (error: unknown) => {
        assert.ok(error instanceof ToolError);
        assert.match(error.message, /stopped during the call/);
        return true;
      });
      const waited = Date.now() - killedAt;
      assert.ok(
        waited < 15_000,
        `the call failed ${waited} ms after the crash, not at its 30 s timeout`,
      );
      assert.equal(manager.status()[0].state, "disconnected");
      server = await startHttpServer(port);
      const result = await tool(manager, "remote_echo").execute(
        { message: "reconnected" },
        context(),
      );
      assert.match(result.output, /reconnected/);
      assert.equal(manager.status()[0].state, "connected");
    } finally {
      await manager.close();
      await stopProcess(server);
    }
  },
});

Deno.test({
  name: "streamable HTTP: a call longer than timeout_ms is a timeout error",
  ignore,
  async fn() {
    const port = freePort();
    const server = await startHttpServer(port);
    const { manager } = await startManager(`http://127.0.0.1:${port}/mcp`, { timeout_ms: 1500 });
    try {
      await assert.rejects(
        tool(manager, "remote_trigger-long-running-operation").execute(
          { duration: 10, steps: 2 },
          context(),
        ),
        (error: unknown) => error instanceof ToolError && error.code === "timeout",
      );
      const result = await tool(manager, "remote_echo").execute({ message: "after" }, context());
      assert.match(result.output, /after/);
    } finally {
      await manager.close();
      await stopProcess(server);
    }
  },
});

Deno.test({
  name: "HTTP: a server that is not there is a warning naming both transports tried",
  ignore,
  async fn() {
    const port = freePort();
    const { manager, warnings } = await startManager(`http://127.0.0.1:${port}/mcp`);
    try {
      assert.equal(warnings.length, 1);
      assert.match(warnings[0], /"remote" did not start: streamable HTTP: .*; SSE fallback: /);
      assert.equal(manager.tools().length, 0);
      assert.equal(manager.status()[0].state, "failed");
    } finally {
      await manager.close();
    }
  },
});

Deno.test({
  name: "HTTP: a server that speaks only SSE is reached through the fallback",
  ignore,
  async fn() {
    const port = freePort();
    const server = await startHttpServer(port, "sse");
    const { manager, warnings } = await startManager(`http://127.0.0.1:${port}/sse`);
    try {
      assert.deepEqual(warnings, []);
      assert.equal(manager.status()[0].transport, "sse");
      const result = await tool(manager, "remote_echo").execute({ message: "via sse" }, context());
      assert.match(result.output, /via sse/);
    } finally {
      await manager.close();
      await stopProcess(server);
    }
  },
});
