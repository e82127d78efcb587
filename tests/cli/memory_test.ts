/**
 * Harness memory end to end: one `skiff run` records decisions and a handoff
 * through the scripted mock model, a second run in the same workspace finds
 * them in its system prompt and through harness_status; `--no-memory` hides
 * them; `skiff memory` lists, shows, exports and deletes what is stored.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";

type Message = { role: string; content?: string };
const messagesOf = (request: Record<string, unknown>) => request.messages as Message[];

const FIRST_SESSION = [
  {
    toolCalls: [
      { name: "harness_record", arguments: { kind: "decision", summary: "keep memory in SQLite" } },
      {
        name: "harness_record",
        arguments: { kind: "decision", summary: "scope memory by git root" },
      },
      {
        name: "remember",
        arguments: { kind: "command", subject: "tests", body: "deno task test", files: ["a.txt"] },
      },
    ],
  },
  {
    toolCalls: [{
      name: "harness_handoff",
      arguments: {
        current_goal: "finish the memory CLI",
        next_steps: ["write skiff memory export"],
        blockers: ["docs not written"],
      },
    }],
  },
  { text: "Recorded." },
];

Deno.test("a second session sees the first one's decisions and handoff in its prompt and through harness_status", async () => {
  await withMockSandbox([
    ...FIRST_SESSION,
    { toolCalls: [{ name: "harness_status", arguments: {} }] },
    { text: "Picking up." },
    { text: "No memory here." },
  ], async (sandbox, mock) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
    const first = await runSkiff(["run", "start the work"], sandbox);
    assertEquals(first.code, 0, first.stderr);
    assertEquals(mock.requests.length, 3);
    assertEquals(messagesOf(mock.requests[0])[0].content!.includes("<memory>"), false);

    const second = await runSkiff(["run", "continue"], sandbox);
    assertEquals(second.code, 0, second.stderr);
    const system = messagesOf(mock.requests[3])[0].content!;
    assertStringIncludes(system, "<memory>");
    assertStringIncludes(system, "keep memory in SQLite");
    assertStringIncludes(system, "scope memory by git root");
    assertStringIncludes(system, "Goal: finish the memory CLI");
    assertStringIncludes(system, "Status: NOT verified");
    assertStringIncludes(system, "] tests (");
    assertStringIncludes(system, "deno task test");
    const status = messagesOf(mock.requests[4]).find((m) => m.role === "tool")!.content!;
    assertStringIncludes(status, "Objective: finish the memory CLI");
    assertStringIncludes(status, "keep memory in SQLite");
    assertStringIncludes(status, "Suggested next action: clear the blocker: docs not written");

    const third = await runSkiff(["run", "--no-memory", "anything"], sandbox);
    assertEquals(third.code, 0, third.stderr);
    assertEquals(messagesOf(mock.requests[5])[0].content!.includes("<memory>"), false);
    const offered = (mock.requests[5].tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assertEquals(offered.includes("remember"), false);
    const before = (mock.requests[3].tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assert(before.includes("harness_status") && before.includes("remember"));
  });
});

Deno.test("skiff memory list, show, export and rm: the user reads and deletes what sessions stored", async () => {
  await withMockSandbox(FIRST_SESSION, async (sandbox) => {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a\n");
    const run = await runSkiff(["run", "start the work"], sandbox);
    assertEquals(run.code, 0, run.stderr);

    const list = await runSkiff(["memory", "list"], sandbox);
    assertEquals(list.code, 0, list.stderr);
    assertStringIncludes(list.stdout, "command: tests");
    assertStringIncludes(list.stdout, "decision: keep memory in SQLite");
    assertStringIncludes(list.stdout, "handoff: finish the memory CLI");
    const memoryId = /(m\d+) .*command: tests/.exec(list.stdout)![1];
    const handoffId = /(h\d+) .*handoff:/.exec(list.stdout)![1];

    const show = await runSkiff(["memory", "show", handoffId], sandbox);
    assertEquals(show.code, 0, show.stderr);
    assertStringIncludes(show.stdout, "Next steps:\n- write skiff memory export");
    const entry = await runSkiff(["memory", "show", memoryId], sandbox);
    assertStringIncludes(entry.stdout, "files: a.txt");
    assertStringIncludes(entry.stdout, "deno task test");

    const exported = JSON.parse((await runSkiff(["memory", "export"], sandbox)).stdout);
    assertEquals(exported.scope, sandbox.workspace);
    assertEquals(exported.memories.length, 1);
    assertEquals(exported.records.length, 3);

    const removed = await runSkiff(["memory", "rm", memoryId, handoffId], sandbox);
    assertEquals(removed.code, 0, removed.stderr);
    const after = await runSkiff(["memory", "list"], sandbox);
    assertEquals(after.stdout.includes("command: tests"), false);
    assertEquals(after.stdout.includes("handoff:"), false);
    assertStringIncludes(after.stdout, "keep memory in SQLite");
    const again = await runSkiff(["memory", "rm", memoryId], sandbox);
    assertEquals(again.code, 1);
    const bad = await runSkiff(["memory", "show", "12"], sandbox);
    assertEquals(bad.code, 2);
    assertStringIncludes(bad.stderr, "m<number>");
    // Another workspace sees none of it.
    const elsewhere = await runSkiff(["memory", "list", "--dir", sandbox.home], sandbox);
    assertStringIncludes(elsewhere.stdout, "Nothing remembered");
  });
});
