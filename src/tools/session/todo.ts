/**
 * todowrite / todoread: the model's own task list, stored with the session
 * (through `ctx.todos`) so it survives a resume. At most one item is
 * in progress at a time — the list is a plan worked through in order, not a
 * set of things juggled at once.
 */
import * as z from "zod";
import { defineTool, type Todo, ToolError } from "../tool.ts";

/** Built with the tool's schema, when that is first needed. */
const todoSchema = () =>
  z.object({
    content: z.string().min(1).describe("What to do, as a short imperative sentence."),
    status: z.enum(["pending", "in_progress", "completed"]).describe(
      "pending (not started), in_progress (being worked on now; at most one), completed (done).",
    ),
    priority: z.enum(["high", "medium", "low"]).describe("How important the item is."),
  });

const writeSchema = z.lazy(() =>
  z.object({
    todos: z.array(todoSchema()).describe(
      "The complete, updated list. It replaces the previous list, so include every item, finished ones too.",
    ),
  })
);

const MARK: Record<Todo["status"], string> = {
  completed: "[x]",
  in_progress: "[~]",
  pending: "[ ]",
};

/** The list as a checklist the model and the user both read. */
export function formatTodos(todos: Todo[]): string {
  if (!todos.length) return "The todo list is empty.";
  const done = todos.filter((todo) => todo.status === "completed").length;
  const lines = todos.map((todo) =>
    `${MARK[todo.status]} ${todo.content}${todo.priority === "medium" ? "" : ` (${todo.priority})`}`
  );
  return `${lines.join("\n")}\n${done}/${todos.length} completed`;
}

export const todoWriteTool = defineTool({
  name: "todowrite",
  description: [
    "Create or update your task list for the current work. Send the whole list each time.",
    "- Use it for work with several steps: plan the steps, mark one in_progress before starting it, and completed as soon as it is done.",
    "- At most one item may be in_progress.",
    "- Skip it for a single, simple request.",
  ].join("\n"),
  schema: writeSchema,
  declare() {
    return { key: "todowrite", patterns: ["*"] };
  },
  execute(input, ctx) {
    const active = input.todos.filter((todo) => todo.status === "in_progress");
    if (active.length > 1) {
      return Promise.reject(
        new ToolError(
          "bad_input",
          `${active.length} items are in_progress: ${
            active.map((todo) => `"${todo.content}"`).join(", ")
          }.`,
          "Keep at most one item in_progress; mark the others pending or completed.",
        ),
      );
    }
    ctx.todos.set(input.todos);
    const open = input.todos.filter((todo) => todo.status !== "completed").length;
    return Promise.resolve({
      output: formatTodos(input.todos),
      title: `${open} open todo${open === 1 ? "" : "s"}`,
      metadata: { todos: input.todos },
    });
  },
});

export const todoReadTool = defineTool({
  name: "todoread",
  description: "Read your current task list (as last written with todowrite).",
  schema: z.object({}),
  declare() {
    return { key: "todoread", patterns: ["*"] };
  },
  execute(_input, ctx) {
    const todos = ctx.todos.get();
    return Promise.resolve({
      output: formatTodos(todos),
      title: `${todos.length} todo${todos.length === 1 ? "" : "s"}`,
      metadata: { todos },
    });
  },
});
