/**
 * skiff inside skiff: the docs' own "another skiff" entry (a server whose
 * command is `skiff mcp serve`) in the global config. `skiff mcp serve`
 * starts no MCP servers at all, and a skiff that skiff started refuses to
 * serve or list, so `skiff mcp list` starts exactly one skiff, which says
 * why it stops. Every skiff start is counted by the `skiff` on PATH (a
 * wrapper that logs, then runs main.ts); the control wrapper drops the
 * marker, and shows the same entry does start a serving skiff. A command
 * skiff runs carries the marker too.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { MAIN, makeSandbox, runSkiff, type Sandbox } from "../../support/cli.ts";
import { mcpServeClient } from "../../support/mcp_serve_client.ts";

/** A `skiff` on PATH that logs each start (with its marker) to `log`; `dropMarker`: the control. */
async function skiffOnPath(sandbox: Sandbox, dropMarker: boolean): Promise<string> {
  const bin = path.join(sandbox.root, dropMarker ? "bin-control" : "bin");
  await Deno.mkdir(bin, { recursive: true });
  const log = path.join(sandbox.root, dropMarker ? "starts-control.log" : "starts.log");
  await Deno.writeTextFile(log, "");
  const quote = (text: string) => `'${text.replaceAll("'", `'"'"'`)}'`;
  await Deno.writeTextFile(
    path.join(bin, "skiff"),
    [
      "#!/bin/sh",
      `echo "start marker=\${SKIFF_CHILD:-none} $*" >> ${quote(log)}`,
      dropMarker ? "unset SKIFF_CHILD" : "",
      // An MCP server's environment is an allowlist: the test's own folders come from here.
      `export DENO_DIR=${quote(sandbox.env.DENO_DIR)}`,
      `export SKIFF_DATA_DIR=${quote(sandbox.dataDir)}`,
      `export SKIFF_CONFIG_DIR=${quote(sandbox.configDir)}`,
      `exec ${quote(Deno.execPath())} run --allow-all --unstable-worker-options --no-prompt ${
        quote(MAIN)
      } "$@"`,
      "",
    ].join("\n"),
  );
  await Deno.chmod(path.join(bin, "skiff"), 0o755);
  return log;
}

/** The docs' "another skiff" entry, in the global config. */
async function anotherSkiff(sandbox: Sandbox): Promise<void> {
  await Deno.writeTextFile(
    path.join(sandbox.configDir, "config.json"),
    JSON.stringify({
      mcp: { inner: { command: "skiff", args: ["mcp", "serve", "--dir", sandbox.workspace] } },
    }),
  );
}

const starts = async (log: string) =>
  (await Deno.readTextFile(log)).split("\n").filter((line) => line.startsWith("start "));

const withPath = (sandbox: Sandbox, bin: string) => ({
  PATH: `${bin}:${sandbox.env.PATH}`,
});

Deno.test("mcp list with the docs' 'another skiff' entry: one skiff starts, refuses to nest, and says why; the control serves", async () => {
  const sandbox = await makeSandbox();
  try {
    await anotherSkiff(sandbox);
    const log = await skiffOnPath(sandbox, false);
    const listed = await runSkiff(["mcp", "list"], sandbox, {
      env: withPath(sandbox, path.join(sandbox.root, "bin")),
    });
    const started = await starts(log);
    assertEquals(started.length, 1, started.join("\n"));
    assertEquals(started[0], "start marker=1 mcp serve --dir " + sandbox.workspace);
    assertEquals(listed.code, 1, listed.stdout + listed.stderr);
    assertStringIncludes(listed.stdout, "inner (stdio, config): failed");
    assertStringIncludes(listed.stdout + listed.stderr, "does not run inside itself");

    // Control: without the marker the same entry starts a skiff that serves its tools,
    // and that skiff, serving, starts no servers of its own (one start, not a chain).
    const controlLog = await skiffOnPath(sandbox, true);
    const control = await runSkiff(["mcp", "list"], sandbox, {
      env: withPath(sandbox, path.join(sandbox.root, "bin-control")),
    });
    assertEquals(control.code, 0, control.stdout + control.stderr);
    assertStringIncludes(control.stdout, "inner (stdio, config): connected");
    assertStringIncludes(control.stdout, "inner_read");
    assertEquals((await starts(controlLog)).length, 1);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("mcp serve with the docs' 'another skiff' entry starts no skiff; started by skiff, it refuses", async () => {
  const sandbox = await makeSandbox();
  try {
    await anotherSkiff(sandbox);
    // The control wrapper: were serve to start its servers, the marker could not stop it.
    const log = await skiffOnPath(sandbox, true);
    sandbox.env.PATH = `${path.join(sandbox.root, "bin-control")}:${sandbox.env.PATH}`;
    const { client, close } = await mcpServeClient(sandbox);
    try {
      const names = (await client.listTools()).tools.map((tool: { name: string }) => tool.name);
      assert(names.includes("read"));
      assertEquals(names.filter((name: string) => name.startsWith("inner_")), []);
    } finally {
      await close();
    }
    assertEquals(await starts(log), []);

    const nested = await runSkiff(["mcp", "serve"], sandbox, { env: { SKIFF_CHILD: "1" } });
    assertEquals(nested.code, 2, nested.stderr);
    assertStringIncludes(
      nested.stderr,
      "skiff mcp serve refused: this process was started by skiff",
    );
    // Any value counts, but an empty one is no marker.
    const empty = await runSkiff(["mcp", "list"], sandbox, { env: { SKIFF_CHILD: "" } });
    assertEquals(empty.stderr.includes("refused"), false, empty.stderr);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a command skiff runs carries the marker", async () => {
  const sandbox = await makeSandbox();
  try {
    const { client, close } = await mcpServeClient(sandbox, [
      "--allow",
      "bash(printenv SKIFF_CHILD)",
    ]);
    try {
      const result = await client.callTool({
        name: "bash",
        arguments: { command: "printenv SKIFF_CHILD" },
      }) as { content: { text: string }[]; isError?: boolean };
      const text = result.content.map((part) => part.text).join("\n");
      if (result.isError && /sandbox|bwrap|unsandboxed/i.test(text)) {
        throw new Error(`no OS sandbox here, so no command runs: ${text}`);
      }
      assertEquals(result.isError ?? false, false, text);
      assertEquals(text.trim().split("\n")[0], "1", text);
    } finally {
      await close();
    }
  } finally {
    await sandbox.cleanup();
  }
});
