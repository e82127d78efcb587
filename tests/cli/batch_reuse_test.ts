/**
 * `skiff batch` end to end with its engine Workers kept across tasks
 * (src/host/engine_pool.ts): at `-j 1` in one workspace every task runs in
 * the Worker the task before it left, and none inherits the last one's
 * session: what a task read is not read for the next, and each task's events
 * carry its own session alone.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";

type Body = Record<string, unknown>;

/** The reader reads target.txt; the editor edits it without reading it; both then answer. */
function respond(body: Body): MockTurn {
  const messages = body.messages as { role: string; content: unknown }[];
  const task = String(messages.find((message) => message.role === "user")?.content);
  if (messages.some((message) => message.role === "tool")) return { text: "done" };
  if (task.startsWith("reader")) {
    return { toolCalls: [{ name: "read", arguments: { file_path: "target.txt" } }] };
  }
  return {
    toolCalls: [{
      name: "edit",
      arguments: { file_path: "target.txt", old_string: "alpha", new_string: "beta" },
    }],
  };
}

Deno.test("batch: a task in a reused engine Worker may not edit what the task before it read", async () => {
  await withMockSandbox([], async (sandbox) => {
    await Deno.writeTextFile(path.join(sandbox.workspace, "target.txt"), "alpha\n");
    const file = path.join(sandbox.root, "tasks.jsonl");
    await Deno.writeTextFile(
      file,
      [
        { id: "reader", prompt: "reader: read target.txt", owns: ["reader.txt"] },
        { id: "editor", prompt: "editor: change target.txt", owns: ["target.txt"] },
        { id: "reader-2", prompt: "reader again", owns: ["reader-2.txt"] },
      ].map((task) => JSON.stringify(task)).join("\n") + "\n",
    );
    const result = await runSkiff(["batch", file, "-j", "1", "--json"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const events = parseJsonLines(result.stdout);

    const edit = events.find((event) => event.type === "tool.completed" && event.tool === "edit");
    assert(edit, "the editor called edit");
    assertEquals(edit.task, "editor");
    assertEquals(edit.ok, false, "refused: the editor's own session never read the file");
    assertStringIncludes(JSON.stringify(edit.error), "has not been read in this session");
    assertEquals(
      await Deno.readTextFile(path.join(sandbox.workspace, "target.txt")),
      "alpha\n",
    );

    // Each task: a session of its own, and only that session in its events.
    const completed = events.filter((event) => event.type === "batch.task.completed");
    assertEquals(completed.map((event) => event.task), ["reader", "editor", "reader-2"]);
    const sessions = completed.map((event) => String(event.session));
    assertEquals(new Set(sessions).size, 3);
    for (const [index, task] of ["reader", "editor", "reader-2"].entries()) {
      const own = events.filter((event) => event.task === task && "session_id" in event);
      assert(own.length > 0, `${task} has events`);
      assertEquals([...new Set(own.map((event) => event.session_id))], [sessions[index]]);
    }
  }, { respond });
});
