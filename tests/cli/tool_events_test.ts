/**
 * End-to-end: `skiff tool` goes through the loop's own tool-call path, so
 * its calls leave the same events in the session's log as a run's
 * (tool.started, permission.decided when a rule refuses, tool.completed), while its stdout stays
 * one result line per call.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import { openStore } from "../../src/store/store.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";

const lines = (...calls: unknown[]) => calls.map((call) => JSON.stringify(call)).join("\n") + "\n";

Deno.test("skiff tool logs a run's events for each call; stdout keeps one result line per call", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n");
    const result = await runSkiff(["tool", "--deny", "edit"], sandbox, {
      input: lines(
        { tool: "read", input: { file_path: "a.txt" } },
        { tool: "write", input: { file_path: "b.txt", content: "x" } },
        { tool: "frobnicate", input: {} },
      ),
    });
    assertEquals(result.code, 1, result.stderr);
    const printed = parseJsonLines(result.stdout);
    assertEquals(printed.map((line) => Object.keys(line)), [
      ["tool", "ok", "output", "metadata"],
      ["tool", "ok", "output", "error", "metadata"],
      ["tool", "ok", "output", "error", "metadata"],
    ]);
    assertEquals(printed.map((line) => (line.error as { code?: string })?.code), [
      undefined,
      "denied",
      "not_found",
    ]);
    assertEquals(printed[2].metadata, {});

    const store = openStore(sandbox.dataDir);
    let events: SkiffEvent[];
    try {
      const [session] = store.listSessions({ workspace: sandbox.workspace });
      assertEquals(session.agent, "tool");
      events = store.listEvents(session.id);
    } finally {
      store.close();
    }
    const calls = events.filter((event) =>
      event.type === "tool.started" || event.type === "permission.decided" ||
      event.type === "tool.completed"
    ).map((event) => {
      const body = event as unknown as { turn: number; tool: string; ok?: boolean };
      return [event.type, body.tool, body.turn, body.ok];
    });
    assertEquals(calls, [
      ["tool.started", "read", 0, undefined],
      ["tool.completed", "read", 0, true],
      ["tool.started", "write", 0, undefined],
      ["permission.decided", "write", 0, undefined],
      ["tool.completed", "write", 0, false],
      ["tool.started", "frobnicate", 0, undefined],
      ["tool.completed", "frobnicate", 0, false],
    ]);
    const completed = events.filter((event) => event.type === "tool.completed") as Extract<
      SkiffEvent,
      { type: "tool.completed" }
    >[];
    assert(completed[0].output.includes("alpha"), completed[0].output);
    assertEquals(completed[1].error?.code, "denied");
  } finally {
    await sandbox.cleanup();
  }
});
