import assert from "node:assert/strict";
import { McpManager } from "../../src/mcp/manager.ts";
import { INHERITED_VARIABLES } from "../../src/mcp/environment.ts";
import { type ToolContext, ToolError } from "../../src/tools/tool.ts";
import {
  DENO,
  hasEverything,
  isAlive,
  projectStdioServer,
  REPO_ROOT,
  stdioServer,
} from "./everything.ts";
import { SKIFF_CHILD_MARKER } from "../../src/sandbox/env.ts";

const ignore = !hasEverything;

function context(): ToolContext {
  // MCP tools read only the signal from the context.
  return { signal: new AbortController().signal, workspace: REPO_ROOT } as ToolContext;
}

async function withManager(
  servers: Record<string, Record<string, unknown>>,
  body: (manager: McpManager, warnings: string[]) => Promise<void>,
  options: { timeoutMs?: number; connectTimeoutMs?: number } = {},
): Promise<void> {
  const manager = new McpManager({
    workspace: REPO_ROOT,
    servers,
    readMcpJson: false,
    connectTimeoutMs: options.connectTimeoutMs ?? 60_000,
    timeoutMs: options.timeoutMs,
  });
  const { warnings } = await manager.start();
  try {
    await body(manager, warnings);
  } finally {
    await manager.close();
  }
}

function tool(manager: McpManager, name: string) {
  const found = manager.tools().find((candidate) => candidate.name === name);
  assert.ok(found, `tool ${name} among ${manager.tools().map((t) => t.name).join(", ")}`);
  return found;
}

Deno.test({
  name: "stdio: lists the server's tools with JSON schemas and calls echo",
  ignore,
  async fn() {
    await withManager({ everything: stdioServer() }, async (manager, warnings) => {
      assert.deepEqual(warnings, []);
      const echo = tool(manager, "everything_echo");
      assert.equal((echo.jsonSchema as { type: string }).type, "object");
      assert.ok("message" in (echo.jsonSchema as { properties: object }).properties);
      const access = await echo.declare({ message: "hi" }, context());
      assert.equal(access.key, "everything_echo");
      assert.deepEqual(access.patterns, ["everything_echo"]);
      const result = await echo.execute({ message: "hello from skiff" }, context());
      assert.match(result.output, /hello from skiff/);
      // Bad arguments come back as a tool error the model can read, naming the field.
      await assert.rejects(echo.execute({}, context()), (error: unknown) => {
        assert.ok(error instanceof ToolError, String(error));
        assert.match(error.message, /message/);
        return true;
      });
      const [status] = manager.status();
      assert.equal(status.state, "connected");
      assert.equal(status.transport, "stdio");
      assert.ok(
        status.tools.some((entry) => entry.name === "everything_trigger-long-running-operation"),
      );
    });
  },
});

Deno.test({
  name: "stdio: the server gets the environment allowlist plus its env, never API keys",
  ignore,
  async fn() {
    Deno.env.set("OPENAI_API_KEY", "sk-should-not-leak");
    try {
      await withManager(
        { everything: stdioServer({ env: { SERVER_OWN: "given" } }) },
        async (manager) => {
          const result = await tool(manager, "everything_get-env").execute({}, context());
          assert.ok(!result.output.includes("sk-should-not-leak"));
          const seen = Object.keys(JSON.parse(result.output));
          // Deno itself sets npm_config_user_agent inside npm packages; skiff marks its children.
          const allowed = [
            ...INHERITED_VARIABLES,
            "SERVER_OWN",
            "npm_config_user_agent",
            SKIFF_CHILD_MARKER,
          ];
          assert.deepEqual(seen.filter((name) => !allowed.includes(name)), []);
          assert.ok(seen.includes("SERVER_OWN") && seen.includes("PATH"));
        },
      );
    } finally {
      Deno.env.delete("OPENAI_API_KEY");
    }
  },
});

Deno.test({
  name: "stdio: a crash mid-call is a tool error, and the next call restarts the server",
  ignore,
  async fn() {
    await withManager({ everything: stdioServer() }, async (manager) => {
      const connection = manager.connection("everything")!;
      const firstPid = connection.pid!;
      const long = tool(manager, "everything_trigger-long-running-operation")
        .execute({ duration: 20, steps: 20 }, context());
      await new Promise((resolve) => setTimeout(resolve, 500));
      Deno.kill(firstPid, "SIGKILL");
      await assert.rejects(long, (error: unknown) => {
        assert.ok(error instanceof ToolError);
        assert.equal(error.code, "failed");
        assert.match(error.message, /stopped during the call/);
        return true;
      });
      assert.equal(manager.status()[0].state, "disconnected");
      const result = await tool(manager, "everything_echo").execute({ message: "back" }, context());
      assert.match(result.output, /back/);
      assert.equal(manager.status()[0].state, "connected");
      assert.notEqual(connection.pid, firstPid);
    });
  },
});

Deno.test({
  name: "stdio: a call longer than timeout_ms is a timeout error and the server stays usable",
  ignore,
  async fn() {
    await withManager({ everything: stdioServer({ timeout_ms: 1500 }) }, async (manager) => {
      const started = Date.now();
      await assert.rejects(
        tool(manager, "everything_trigger-long-running-operation")
          .execute({ duration: 10, steps: 2 }, context()),
        (error: unknown) => error instanceof ToolError && error.code === "timeout",
      );
      const elapsed = Date.now() - started;
      assert.ok(elapsed >= 1400 && elapsed < 5000, `timed out after ${elapsed} ms`);
      const result = await tool(manager, "everything_echo").execute(
        { message: "still here" },
        context(),
      );
      assert.match(result.output, /still here/);
    });
  },
});

Deno.test({
  name: "stdio: servers that never answer or cannot start are warnings; the rest work",
  ignore,
  async fn() {
    const pidFile = Deno.makeTempFileSync();
    // Starts, notes its pid, then never says a word.
    const silent = {
      command: DENO,
      args: [
        "eval",
        `Deno.writeTextFileSync(${
          JSON.stringify(pidFile)
        }, String(Deno.pid)); setInterval(() => {}, 1000)`,
      ],
    };
    await withManager(
      {
        everything: stdioServer({ connect_timeout_ms: 60_000 }),
        silent,
        missing: { command: "skiff-no-such-server-command" },
        off: { ...silent, enabled: false },
      },
      async (manager, warnings) => {
        const text = warnings.join("\n");
        assert.match(text, /"silent" did not start: no answer within 1500 ms/);
        assert.match(text, /"missing" did not start: .*skiff-no-such-server-command/);
        const byName = new Map(manager.status().map((status) => [status.name, status]));
        assert.equal(byName.get("everything")!.state, "connected");
        assert.equal(byName.get("silent")!.state, "failed");
        assert.equal(byName.get("off")!.state, "disabled");
        assert.ok(manager.tools().every((entry) => entry.name.startsWith("everything_")));
        const silentPid = Number(await Deno.readTextFile(pidFile));
        assert.ok(silentPid > 0 && !isAlive(silentPid), "a server that failed to start is stopped");
      },
      { connectTimeoutMs: 1500 },
    );
  },
});

Deno.test({
  name: "stdio: close() stops the server process",
  ignore,
  async fn() {
    let pid = 0;
    await withManager({ everything: stdioServer() }, (manager) => {
      pid = manager.connection("everything")!.pid!;
      assert.ok(isAlive(pid));
      return Promise.resolve();
    });
    await new Promise((resolve) => setTimeout(resolve, 200));
    assert.ok(!isAlive(pid), "server process still running after close()");
  },
});

Deno.test({
  name: "stdio: a project .mcp.json server starts as written",
  ignore,
  async fn() {
    const workspace = Deno.makeTempDirSync({ prefix: "skiff-mcpjson-" });
    Deno.writeTextFileSync(
      `${workspace}/.mcp.json`,
      JSON.stringify({ mcpServers: { "every thing": { type: "stdio", ...projectStdioServer() } } }),
    );
    const manager = new McpManager({ workspace, connectTimeoutMs: 60_000 });
    try {
      const { warnings } = await manager.start();
      assert.deepEqual(warnings, []);
      const result = await tool(manager, "every_thing_echo").execute(
        { message: "from .mcp.json" },
        context(),
      );
      assert.match(result.output, /from \.mcp\.json/);
      assert.equal(manager.status()[0].source, `${workspace}/.mcp.json`);
    } finally {
      await manager.close();
    }
  },
});

Deno.test({
  name: "stdio: starts with env access limited to the allowlist (as in the engine's Worker)",
  ignore,
  permissions: {
    env: [...INHERITED_VARIABLES],
    run: [DENO],
    read: true,
    write: false,
    net: false,
  },
  async fn() {
    await withManager({ everything: stdioServer() }, async (manager, warnings) => {
      assert.deepEqual(warnings, []);
      const result = await tool(manager, "everything_echo").execute(
        { message: "limited" },
        context(),
      );
      assert.match(result.output, /limited/);
    });
  },
});

Deno.test({
  name: "stdio: parallel calls after a crash share one restart",
  ignore,
  async fn() {
    await withManager({ everything: stdioServer() }, async (manager) => {
      const connection = manager.connection("everything")!;
      const firstPid = connection.pid!;
      Deno.kill(firstPid, "SIGKILL");
      while (manager.status()[0].state !== "disconnected") {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const echo = tool(manager, "everything_echo");
      const results = await Promise.all(
        ["a", "b", "c"].map((message) => echo.execute({ message }, context())),
      );
      assert.deepEqual(results.map((result) => /Echo: (\w)/.exec(result.output)?.[1]), [
        "a",
        "b",
        "c",
      ]);
      assert.equal(connection.restartCount, 1);
      const secondPid = connection.pid!;
      assert.notEqual(secondPid, firstPid);
      assert.ok(isAlive(secondPid));
    });
  },
});

Deno.test({
  name: "stdio: when the one restart fails, the server is failed and calls fail at once",
  ignore,
  async fn() {
    const flag = `${Deno.makeTempDirSync()}/broken`;
    const server = stdioServer();
    // Starts the real server the first time; once the flag exists it exits at once.
    const script = `[ -e "${flag}" ] && { echo "config is broken" >&2; exit 1; }; exec "$0" "$@"`;
    await withManager(
      { flaky: { ...server, command: "sh", args: ["-c", script, server.command, ...server.args] } },
      async (manager) => {
        const echo = tool(manager, "flaky_echo");
        assert.match((await echo.execute({ message: "first" }, context())).output, /first/);
        Deno.writeTextFileSync(flag, "");
        Deno.kill(manager.connection("flaky")!.pid!, "SIGKILL");
        while (manager.status()[0].state !== "disconnected") {
          await new Promise((resolve) => setTimeout(resolve, 20));
        }
        await assert.rejects(echo.execute({ message: "second" }, context()), (error: unknown) => {
          assert.ok(error instanceof ToolError);
          assert.match(error.message, /"flaky" is not available: .*config is broken/);
          return true;
        });
        const status = manager.status()[0];
        assert.equal(status.state, "failed");
        const started = Date.now();
        await assert.rejects(echo.execute({ message: "third" }, context()), ToolError);
        assert.ok(Date.now() - started < 200, "a failed server is not restarted again");
      },
    );
  },
});
