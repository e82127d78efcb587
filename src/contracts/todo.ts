/** The todo list `todowrite` keeps: written by the tool, stored with the session. */

/** A todo item, as `todowrite` stores it with the session. */
export interface Todo {
  content: string;
  status: "pending" | "in_progress" | "completed";
  priority: "high" | "medium" | "low";
}
