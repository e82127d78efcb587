/**
 * MCP Inspector's command-line client (`mcp-inspector --cli`, pinned in
 * prerequisites.ts) against `skiff mcp serve`, over stdio and over HTTP:
 * the tools with their titles and annotations, a `read`, a call skiff's
 * rules refuse, skiff ending when the Inspector closes its stdin, and one
 * Inspector run after another against one HTTP server (each run leaves its
 * session without ending it).
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runInWorkspace, type Sandbox } from "../../support/cli.ts";
import { processesHolding } from "../../support/processes.ts";
import { MAX_CLIENTS } from "../../../src/cli/mcp/mcp_serve_http.ts";
import { INSPECTOR, npmPackage, skiffServeCommand, startHttpServe } from "./prerequisites.ts";

interface InspectorRun {
  code: number;
  /** The one JSON object `--format json` prints (a result or an error). */
  json: Record<string, unknown>;
  stderr: string;
}

/**
 * One `mcp-inspector --cli --format json …request …target` run to its end,
 * in the sandbox; the target last, as a server's command follows `--`.
 */
async function inspector(
  sandbox: Sandbox,
  target: string[],
  request: string[],
): Promise<InspectorRun> {
  const launcher = path.join(await npmPackage(INSPECTOR), "clients/launcher/build/index.js");
  const { code, stdout, stderr } = await runInWorkspace(
    "node",
    [launcher, "--cli", "--format", "json", ...request, ...target],
    sandbox,
  );
  // A result goes to stdout (a tool error too); an error envelope, alone, to stderr.
  const lastJson = (text: string) =>
    text.split("\n").reverse().find((line) => line.startsWith("{"));
  const line = lastJson(stdout) ?? lastJson(stderr);
  assert(line, `the Inspector printed no JSON (exit ${code}): ${stdout}\n${stderr}`);
  return { code, json: JSON.parse(line), stderr };
}

type ListedTool = { name: string; title?: string; annotations?: Record<string, unknown> };
type CallResult = { content: { type: string; text: string }[]; isError?: boolean };

const resultOf = <T>(run: InspectorRun) => run.json.result as T;
const textOf = (run: InspectorRun) =>
  resultOf<CallResult>(run).content.map((part) => part.text).join("\n");

/** What both transports must show: annotated tools, a read, a refused call. */
async function listReadAndRefuse(sandbox: Sandbox, target: string[]): Promise<InspectorRun[]> {
  const listed = await inspector(sandbox, target, ["--method", "tools/list"]);
  assertEquals(listed.code, 0, listed.stderr);
  const tools = resultOf<{ tools: ListedTool[] }>(listed).tools;
  const read = tools.find((tool) => tool.name === "read");
  const bash = tools.find((tool) => tool.name === "bash");
  assert(read && bash, `no read or bash among ${tools.map((tool) => tool.name)}`);
  assertEquals(read.title, "Read a file");
  assertEquals(read.annotations?.readOnlyHint, true);
  assertEquals(read.annotations?.destructiveHint, false);
  assertEquals(bash.annotations?.readOnlyHint, false);
  assertEquals(bash.annotations?.destructiveHint, true);
  assertEquals(bash.annotations?.openWorldHint, true);

  const readRun = await inspector(sandbox, target, [
    "--method",
    "tools/call",
    "--tool-name",
    "read",
    "--tool-arg",
    "file_path=notes.txt",
  ]);
  assertEquals(readRun.code, 0, readRun.stderr);
  assertStringIncludes(textOf(readRun), "inspector was here");

  const refused = await inspector(sandbox, target, [
    "--method",
    "tools/call",
    "--tool-name",
    "bash",
    "--tool-arg",
    "command=rm -rf notes.txt",
  ]);
  // The Inspector exits non-zero on a tool error and still prints the result.
  assert(refused.code !== 0, "a refused call was not an error to the Inspector");
  assertEquals(resultOf<CallResult>(refused).isError, true);
  assertStringIncludes(textOf(refused), "denied");
  assertStringIncludes(textOf(refused), "--allow 'bash(rm -rf notes.txt)'");
  assert(await Deno.stat(path.join(sandbox.workspace, "notes.txt")), "the refused rm ran");
  return [listed, readRun, refused];
}

Deno.test("Inspector CLI over stdio: annotated tools, read, a refused call; skiff ends on stdin EOF", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "inspector was here\n");
    const { command, args } = skiffServeCommand(["--dir", sandbox.workspace]);
    // The Inspector gives a server only the variables named with -e, besides its defaults.
    const env = Object.entries(sandbox.env).flatMap(([name, value]) => ["-e", `${name}=${value}`]);
    const runs = await listReadAndRefuse(sandbox, [...env, "--", command, ...args]);
    for (const run of runs) {
      // The Inspector closed the pipe, and skiff stopped for that reason.
      assertStringIncludes(run.stderr, "the client closed stdin; stopping");
    }
    const serving = `mcp serve --dir ${sandbox.workspace}`;
    const deadline = Date.now() + 10_000;
    while (processesHolding(serving).length && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    assertEquals(processesHolding(serving), [], "skiff mcp serve outlived the Inspector");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("Inspector CLI over HTTP: annotated tools, read, a refused call; more one-shot runs than places", async () => {
  const sandbox = await makeSandbox();
  const server = await startHttpServe(sandbox);
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "inspector was here\n");
    // Options only: --tool-arg takes every word up to the next option, a URL among them.
    const target = [
      "--header",
      `Authorization: Bearer ${server.token}`,
      "--server-url",
      server.url,
      "--transport",
      "http",
    ];
    await listReadAndRefuse(sandbox, target);
    // Each run opens a session and exits without ending it: one run more than there are places.
    for (let run = 4; run <= MAX_CLIENTS + 1; run++) {
      const again = await inspector(sandbox, target, [
        "--method",
        "tools/call",
        "--tool-name",
        "read",
        "--tool-arg",
        "file_path=notes.txt",
      ]);
      assertEquals(again.code, 0, `Inspector run ${run}: ${JSON.stringify(again.json)}`);
      assertStringIncludes(textOf(again), "inspector was here");
    }
    const stderr = await server.stderrUntil(/ended: idle longest, its place given to a new client/);
    // Reading a request's body once, skiff gives Deno no cause to warn on stderr.
    assert(!stderr.includes("request.signal"), stderr);

    const unauthorized = await inspector(sandbox, ["--server-url", server.url], [
      "--method",
      "tools/list",
    ]);
    assert(unauthorized.code !== 0, "a run without the token was served");
  } finally {
    await server.stop();
    await sandbox.cleanup();
  }
});
