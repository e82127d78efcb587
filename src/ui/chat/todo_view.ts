/**
 * The agent's todo list as a checklist above the input, redrawn in place
 * each time `todowrite` changes it (it lives in the redrawn region, not the
 * scrollback). It is built from the call's input, the complete new list.
 * Long lists show the items around the one in progress, with a count.
 */
import type { Todo } from "../../contracts/todo.ts";
import { neutraliseControls } from "../safe_text.ts";
import type { Style } from "./style.ts";
import { truncate } from "./width.ts";

/** The new list a `todowrite` call carries, or undefined when it is not one. */
export function todosOf(tool: string, input: unknown): Todo[] | undefined {
  if (tool !== "todowrite" || !input || typeof input !== "object") return undefined;
  const todos = (input as { todos?: unknown }).todos;
  if (!Array.isArray(todos)) return undefined;
  return todos.filter((todo): todo is Todo =>
    Boolean(todo) && typeof todo.content === "string" && typeof todo.status === "string"
  );
}

/** The checklist in at most `maxRows` rows; [] for an empty or fully finished list. */
export function formatTodos(
  todos: Todo[],
  style: Style,
  columns: number,
  maxRows: number,
): string[] {
  if (!todos.length || todos.every((todo) => todo.status === "completed")) return [];
  const done = todos.filter((todo) => todo.status === "completed").length;
  const items = todos.map((todo) => {
    const text = truncate(neutraliseControls(todo.content.split("\n")[0]), columns - 6);
    if (todo.status === "completed") return `  ${style.green("☒")} ${style.dim(text)}`;
    if (todo.status === "in_progress") return `  ${style.yellow("◼")} ${style.bold(text)}`;
    return `  ☐ ${text}`;
  });
  const head = style.dim(`Todo ${done}/${todos.length}`);
  const room = Math.max(1, maxRows - 1);
  if (items.length <= room) return [head, ...items];
  // Keep the item in progress (or the first open one) in view.
  const current = Math.max(0, todos.findIndex((todo) => todo.status !== "completed"));
  const start = Math.min(Math.max(0, current - 1), items.length - (room - 1));
  const shown = items.slice(start, start + room - 1);
  const hidden = items.length - shown.length;
  return [head, ...shown, style.dim(`  … ${hidden} more`)];
}
