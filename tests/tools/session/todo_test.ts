/**
 * todowrite / todoread: the list is stored through the context, shown as a
 * checklist, and more than one in_progress item is refused.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { todoReadTool, todoWriteTool } from "../../../src/tools/session/todo.ts";
import { makeWorkspace } from "../_context.ts";

Deno.test("todowrite stores the list and answers with a checklist; todoread reads it back", async () => {
  await using ws = await makeWorkspace();
  const todos = [
    { content: "Read the parser", status: "completed", priority: "high" },
    { content: "Fix the off-by-one", status: "in_progress", priority: "high" },
    { content: "Add a test", status: "pending", priority: "medium" },
    { content: "Update the docs", status: "pending", priority: "low" },
  ];
  const written = await ws.run(todoWriteTool, { todos });
  const checklist = [
    "[x] Read the parser (high)",
    "[~] Fix the off-by-one (high)",
    "[ ] Add a test",
    "[ ] Update the docs (low)",
    "1/4 completed",
  ].join("\n");
  assertEquals(written.output, checklist);
  assertEquals(ws.ctx.todos.get(), todos);
  const read = await ws.run(todoReadTool, {});
  assertEquals(read.output, checklist);
});

Deno.test("two items in progress are refused and the stored list is unchanged", async () => {
  await using ws = await makeWorkspace();
  const error = await ws.fail(todoWriteTool, {
    todos: [
      { content: "a", status: "in_progress", priority: "high" },
      { content: "b", status: "in_progress", priority: "low" },
    ],
  });
  assertEquals(error.code, "bad_input");
  // The rule is at most one: none in progress is fine, so the hint must not ask for exactly one.
  assertStringIncludes(error.hint ?? "", "at most one");
  assertEquals(ws.ctx.todos.get(), []);
  assertEquals((await ws.run(todoReadTool, {})).output, "The todo list is empty.");
});
