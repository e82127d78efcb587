/**
 * The `task` tool: hands a self-contained piece of work to a subagent, which
 * runs as a child session with its own history. The session layer supplies
 * the runner; this file only checks the request and reports the outcome —
 * the child's final answer and the files it read and wrote.
 */
import * as z from "zod";
import * as path from "../../lib/path.ts";
import { defineTool, type Tool, ToolError } from "../tool.ts";
import type { AgentDefinition } from "../../definitions/agents/types.ts";
import { isWithin, ownedPath } from "../../sandbox/paths.ts";

export interface SubagentRunRequest {
  /** Three to five words, shown to the person watching. */
  description: string;
  /** The whole brief; the child sees nothing else of the parent's conversation. */
  prompt: string;
  agent: AgentDefinition;
  /**
   * When not empty, the only places the child may write: absolute, realpath'd,
   * inside the workspace. A folder covers everything under it (see `isOwnedPath`).
   */
  owns: string[];
  signal: AbortSignal;
  /** The session that started the child, and the call that did, for linking. */
  parentSessionId: string;
  callId: string;
}

export interface SubagentRunResult {
  sessionId: string;
  /** The child's final answer. */
  text: string;
  /** Absolute paths. */
  filesRead: string[];
  filesWritten: string[];
}

/**
 * The most of a subagent's answer the parent's conversation takes in (about
 * 3,000 tokens): a subagent compacts its own history, and its answer must not
 * undo that by filling the parent's. The whole answer stays in its session.
 */
export const MAX_SUBAGENT_ANSWER_CHARS = 12_000;

/**
 * The answer cut to `max` characters, its beginning and end kept, with a
 * note naming the session that holds all of it.
 */
export function limitSubagentAnswer(
  text: string,
  sessionId: string,
  max = MAX_SUBAGENT_ANSWER_CHARS,
): string {
  if (text.length <= max) return text;
  const head = Math.floor(max * 0.75);
  const tail = max - head;
  return `${text.slice(0, head)}\n\n[… ${
    text.length - max
  } characters of the subagent's answer left out to keep this conversation small; ` +
    `the full answer is stored in its session ${sessionId} …]\n\n${text.slice(-tail)}`;
}

/** Runs one child session to its end. Implemented by the session layer. */
export interface SubagentRunner {
  run(request: SubagentRunRequest): Promise<SubagentRunResult>;
}

/** True when `absolutePath` is one of `owns` or lies under one of them. */
export function isOwnedPath(owns: string[], absolutePath: string): boolean {
  return owns.some((owned) => isWithin(owned, absolutePath));
}

const schema = z.lazy(() =>
  z.object({
    description: z.string().describe("A short (3-5 words) summary of the task"),
    prompt: z.string().describe(
      "The complete task for the subagent: goal, context, constraints and what to report back",
    ),
    subagent_type: z.string().describe("Which subagent runs the task, by name"),
    owns: z.array(z.string()).optional().describe(
      "Optional workspace paths (files or folders) the subagent alone may write; " +
        "give parallel tasks separate paths",
    ),
  })
);

export function taskToolDescription(subagents: AgentDefinition[]): string {
  return [
    "Start a subagent on a self-contained task. It works in its own session with its own",
    "tools and returns one final answer plus the files it read and wrote. It does not see",
    "this conversation, so the prompt must say everything it needs. Several task calls in",
    "one reply run at the same time; give each its own `owns` paths when they edit.",
    "",
    "Available subagents:",
    ...(subagents.length
      ? subagents.map((agent) => `- ${agent.name}: ${agent.description || "(no description)"}`)
      : ["(none)"]),
  ].join("\n");
}

export function createTaskTool(
  runner: SubagentRunner,
  subagents: AgentDefinition[],
): Tool<z.infer<typeof schema>> {
  const byName = new Map(subagents.map((agent) => [agent.name, agent]));
  return defineTool({
    name: "task",
    description: taskToolDescription(subagents),
    schema,
    declare(input) {
      return {
        key: "task",
        patterns: [input.subagent_type],
        preview: `${input.subagent_type}: ${input.description}`,
      };
    },
    async execute(input, ctx) {
      const agent = byName.get(input.subagent_type);
      if (!agent) {
        throw new ToolError(
          "not_found",
          `No subagent named "${input.subagent_type}".`,
          `Use one of: ${[...byName.keys()].join(", ") || "(none available)"}.`,
        );
      }
      if (!input.prompt.trim()) {
        throw new ToolError(
          "bad_input",
          "The prompt is empty.",
          "Write the full task in `prompt`.",
        );
      }
      const owns = (input.owns ?? []).map((owned) => {
        const resolved = ownedPath(ctx.workspace, owned);
        if (!resolved.inside) {
          throw new ToolError(
            "bad_input",
            `owns path "${owned}" is outside the workspace (${resolved.real}).`,
            "Give paths inside the workspace, relative to its root.",
          );
        }
        return resolved.real;
      });
      const result = await runner.run({
        description: input.description,
        prompt: input.prompt,
        agent,
        owns,
        signal: ctx.signal,
        parentSessionId: ctx.sessionId,
        callId: ctx.callId,
      });
      const show = (file: string) => {
        const relative = path.relative(ctx.workspace, file);
        return relative && !relative.startsWith("..") && !path.isAbsolute(relative)
          ? relative.split(path.sep).join("/")
          : file;
      };
      const output = [
        `<task_result agent="${agent.name}" session_id="${result.sessionId}">`,
        limitSubagentAnswer(result.text.trim(), result.sessionId) ||
        "(the subagent gave no final answer)",
        "</task_result>",
        `Files read: ${result.filesRead.map(show).join(", ") || "none"}`,
        `Files written: ${result.filesWritten.map(show).join(", ") || "none"}`,
      ].join("\n");
      return {
        output,
        title: `${agent.name}: ${input.description}`,
        metadata: {
          sessionId: result.sessionId,
          agent: agent.name,
          filesRead: result.filesRead,
          filesWritten: result.filesWritten,
        },
      };
    },
  });
}

/** The tool's zod schema, a module constant (the registry converts it ahead of time). */
export { schema as taskSchema };
