/**
 * End-to-end: output too long for the history is spilled to a file of the
 * session's own (`<data>/tool-output/<session>/<call>.txt`), which the model
 * may then read and grep in a headless run without being asked; another
 * session's spill folder stays hidden, `sessions rm` deletes the folder, and
 * old folders are pruned.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox } from "../support/cli.ts";
import { type MockTurn, startMockServer } from "../support/mock_server.ts";

const LONG_COMMAND = "seq 1 20000";
const FLAGS = ["--json", "--sandbox", "full-access", "--allow", "bash(seq *)"];

/** One `skiff run` against its own scripted model. */
async function runWith(
  sandbox: Sandbox,
  script: MockTurn[],
  args: string[],
): Promise<{ code: number; events: Record<string, unknown>[]; stderr: string }> {
  const mock = startMockServer(script);
  try {
    const result = await runSkiff(["run", ...FLAGS, ...args], sandbox, {
      env: { OPENAI_BASE_URL: mock.url, SKIFF_MODEL: "mock-model" },
    });
    return { code: result.code, events: parseJsonLines(result.stdout), stderr: result.stderr };
  } finally {
    await mock.close();
  }
}

function toolResults(events: Record<string, unknown>[]) {
  return events.filter((event) => event.type === "tool.completed") as {
    ok: boolean;
    output: string;
    error?: { code: string; message: string };
  }[];
}

/** A session whose one command printed more than the history keeps. */
async function spillingSession(sandbox: Sandbox): Promise<{ id: string; file: string }> {
  const run = await runWith(sandbox, [
    { toolCalls: [{ id: "call_1", name: "bash", arguments: { command: LONG_COMMAND } }] },
    { text: "done" },
  ], ["count"]);
  assertEquals(run.code, 0, run.stderr);
  const id = String(run.events[0].session_id);
  const file = path.join(sandbox.dataDir, "tool-output", id, "call_1.txt");
  const [result] = toolResults(run.events);
  assertStringIncludes(result.output, file, "the notice names the session's own spill file");
  return { id, file };
}

Deno.test("a headless run reads and greps its own spilled output without being asked", async () => {
  const sandbox = await makeSandbox();
  try {
    const { id, file } = await spillingSession(sandbox);
    assertStringIncludes(await Deno.readTextFile(file), "\n19999\n");
    const again = await runWith(sandbox, [
      {
        toolCalls: [
          { id: "call_1", name: "read", arguments: { file_path: file, offset: 19990 } },
          {
            id: "call_2",
            name: "grep",
            arguments: { pattern: "^1999[0-9]$", path: path.dirname(file) },
          },
        ],
      },
      { text: "read it" },
    ], ["--session", id, "read the rest"]);
    assertEquals(again.code, 0, `no ask, no denial: ${again.stderr}`);
    const [read, grep] = toolResults(again.events);
    assert(read.ok, JSON.stringify(read.error));
    assertStringIncludes(read.output, "19995");
    assert(grep.ok, JSON.stringify(grep.error));
    assertStringIncludes(grep.output, "19998");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("a second session's spill does not overwrite the first's, and cannot read it", async () => {
  const sandbox = await makeSandbox();
  try {
    const first = await spillingSession(sandbox);
    const second = await spillingSession(sandbox);
    assert(first.file !== second.file, "each session has its own file for call_1");
    assertStringIncludes(await Deno.readTextFile(first.file), "19999");

    const snoop = await runWith(sandbox, [
      { toolCalls: [{ id: "call_1", name: "read", arguments: { file_path: first.file } }] },
      { text: "tried" },
    ], ["--yes", "read the other session's output"]);
    const [read] = toolResults(snoop.events);
    assertEquals(read.ok, false, "another session's spill folder stays hidden, --yes or not");
    assertEquals(read.error?.code, "denied");
    assertStringIncludes(read.error?.message ?? "", "hidden");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("sessions rm deletes the session's spill folder", async () => {
  const sandbox = await makeSandbox();
  try {
    const { id, file } = await spillingSession(sandbox);
    const removed = await runSkiff(["sessions", "rm", id], sandbox);
    assertEquals(removed.code, 0, removed.stderr);
    const left = await Deno.stat(path.dirname(file)).then(() => true, () => false);
    assertEquals(left, false);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("spill folders older than toolOutput.maxAgeDays are pruned when a session starts", async () => {
  const sandbox = await makeSandbox();
  try {
    const old = path.join(sandbox.dataDir, "tool-output", "ses_old");
    await Deno.mkdir(old, { recursive: true });
    await Deno.writeTextFile(path.join(old, "call_1.txt"), "old output\n");
    const longAgo = new Date(Date.now() - 3 * 24 * 3600 * 1000);
    await Deno.utime(path.join(old, "call_1.txt"), longAgo, longAgo);
    await Deno.utime(old, longAgo, longAgo);
    await Deno.writeTextFile(
      path.join(sandbox.configDir, "config.json"),
      JSON.stringify({ toolOutput: { maxAgeDays: 2 } }),
    );
    const { file } = await spillingSession(sandbox);
    assertEquals(await Deno.stat(old).then(() => true, () => false), false, "pruned");
    assertStringIncludes(await Deno.readTextFile(file), "19999", "the new one stays");
  } finally {
    await sandbox.cleanup();
  }
});
