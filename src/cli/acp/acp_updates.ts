/**
 * skiff's events as ACP `session/update`s: the answer and the reasoning as
 * chunks, each tool call as a `tool_call` (kind, title, the files it names)
 * and a `tool_call_update` when it ends (its output, the diff of a file it
 * changed), and the todo list as a plan. Pure: the session sends what this
 * returns (acp_session.ts), and a stored session's history is replayed
 * through the same shapes (acp_replay.ts).
 */
import type * as acp from "@agentclientprotocol/sdk";
import * as path from "../../lib/path.ts";
import type { SkiffEvent } from "../../contracts/events.ts";
import type { Todo } from "../../contracts/todo.ts";
import { describeInput } from "../../ui/tool_title.ts";

/** How an editor files each tool: the icon and the grouping it shows. */
const TOOL_KINDS: Record<string, acp.ToolKind> = {
  read: "read",
  edit: "edit",
  write: "edit",
  apply_patch: "edit",
  file_copy: "edit",
  file_delete: "delete",
  bash: "execute",
  background: "execute",
  process: "execute",
  grep: "search",
  glob: "search",
  list: "search",
  symbol: "search",
  webfetch: "fetch",
  todowrite: "think",
};

/** The ACP kind of a tool by its name; "other" for MCP tools and the rest. */
export function toolKind(tool: string): acp.ToolKind {
  return TOOL_KINDS[tool] ?? "other";
}

/** What a tool line names a call by: the tool and the argument a person knows it by. */
export function toolCallTitle(tool: string, input: unknown): string {
  const shown = describeInput(input).split("\n")[0];
  return shown ? `${tool} ${shown}` : tool;
}

/** The files a call names (`file_path`, `path`), absolute, for the editor to open. */
export function toolLocations(input: unknown, workspace: string): acp.ToolCallLocation[] {
  if (!input || typeof input !== "object") return [];
  const record = input as Record<string, unknown>;
  const named = [record.file_path, record.path].filter((value): value is string =>
    typeof value === "string" && value !== ""
  );
  return named.slice(0, 1).map((file) => ({ path: path.resolve(workspace, file) }));
}

/**
 * The hunks of a unified diff as ACP diffs of `file`: each hunk's old and new
 * lines. The tools keep only hunks on their events, never the whole file.
 */
export function diffsOf(unified: string, file: string): acp.ToolCallContent[] {
  const diffs: acp.ToolCallContent[] = [];
  let hunk: { old: string[]; new: string[] } | undefined;
  const flush = () => {
    if (hunk) {
      diffs.push({
        type: "diff",
        path: file,
        oldText: hunk.old.length ? `${hunk.old.join("\n")}\n` : null,
        newText: hunk.new.length ? `${hunk.new.join("\n")}\n` : "",
      });
    }
  };
  for (const line of unified.split("\n")) {
    if (line.startsWith("@@")) {
      flush();
      hunk = { old: [], new: [] };
    } else if (!hunk || line.startsWith("\\")) continue;
    else if (line.startsWith("-")) hunk.old.push(line.slice(1));
    else if (line.startsWith("+")) hunk.new.push(line.slice(1));
    else if (line.startsWith(" ")) {
      hunk.old.push(line.slice(1));
      hunk.new.push(line.slice(1));
    }
  }
  flush();
  return diffs;
}

/** A todo list as an ACP plan. */
export function planOf(todos: readonly Todo[]): acp.SessionUpdate {
  return {
    sessionUpdate: "plan",
    entries: todos.map((todo) => ({
      content: todo.content,
      priority: todo.priority ?? "medium",
      status: todo.status,
    })),
  };
}

/** The todos of a `todowrite` call's input; undefined when it holds none. */
function todosOf(input: unknown): Todo[] | undefined {
  const todos = (input as { todos?: unknown } | null)?.todos;
  return Array.isArray(todos) ? todos as Todo[] : undefined;
}

/** A text chunk of the answer or the reasoning. */
export function textChunk(
  kind: "agent_message_chunk" | "agent_thought_chunk" | "user_message_chunk",
  text: string,
): acp.SessionUpdate {
  return { sessionUpdate: kind, content: { type: "text", text } };
}

/** A started call as the editor first sees it. */
export function startedCall(
  callId: string,
  tool: string,
  input: unknown,
  workspace: string,
): acp.SessionUpdate {
  return {
    sessionUpdate: "tool_call",
    toolCallId: callId,
    title: toolCallTitle(tool, input),
    kind: toolKind(tool),
    status: "in_progress",
    locations: toolLocations(input, workspace),
    rawInput: input,
  };
}

/** An ended call: its status, the diff of a file it changed, then its output. */
export function endedCall(
  ended: {
    callId: string;
    tool: string;
    ok: boolean;
    output: string;
    diff?: string;
    title?: string;
  },
  input: unknown,
  workspace: string,
): acp.SessionUpdate {
  const file = toolLocations(input, workspace)[0]?.path;
  const content: acp.ToolCallContent[] = ended.ok && ended.diff && file
    ? diffsOf(ended.diff, file)
    : [];
  if (ended.output) {
    content.push({ type: "content", content: { type: "text", text: ended.output } });
  }
  return {
    sessionUpdate: "tool_call_update",
    toolCallId: ended.callId,
    status: ended.ok ? "completed" : "failed",
    ...(ended.title ? { title: ended.title } : {}),
    content,
  };
}

/**
 * Turns the events of one session into updates. It keeps each call's input
 * from its start, since the end carries only the output.
 */
export class UpdateTranslator {
  readonly #inputs = new Map<string, { tool: string; input: unknown }>();

  constructor(private readonly workspace: string) {}

  /** The updates one event makes; none for events an editor has no place for. */
  translate(event: SkiffEvent): acp.SessionUpdate[] {
    switch (event.type) {
      case "message.delta":
        return [textChunk("agent_message_chunk", event.text)];
      case "reasoning.delta":
        return [textChunk("agent_thought_chunk", event.text)];
      case "tool.started": {
        this.#inputs.set(event.call_id, { tool: event.tool, input: event.input });
        return [startedCall(event.call_id, event.tool, event.input, this.workspace)];
      }
      case "tool.completed": {
        const started = this.#inputs.get(event.call_id);
        this.#inputs.delete(event.call_id);
        const diff = event.metadata?.diff;
        const updates = [endedCall(
          {
            callId: event.call_id,
            tool: event.tool,
            ok: event.ok,
            output: event.ok ? event.output : event.error?.message ?? event.output,
            diff: typeof diff === "string" ? diff : undefined,
            title: event.title ? `${event.tool} ${event.title}` : undefined,
          },
          started?.input,
          this.workspace,
        )];
        const todos = event.ok && event.tool === "todowrite" ? todosOf(started?.input) : undefined;
        if (todos) updates.push(planOf(todos));
        return updates;
      }
      case "error":
        return [textChunk("agent_message_chunk", `\n\nskiff: ${event.message}`)];
      default:
        return [];
    }
  }
}
