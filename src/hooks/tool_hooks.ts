/**
 * The PreToolUse and PostToolUse hooks around one tool call, in the shape
 * the engine's call path takes (src/engine/loop/tool_call.ts). After a
 * PostToolUse hook, a file the call wrote and a hook then rewrote (a
 * formatter) is what the model's next edit will meet: the read ledger takes
 * the new content, and the model is told to read the file again before it
 * edits text the hook may have moved.
 */
import { hashContent } from "../contracts/snapshot_sink.ts";
import type { Tool, ToolContext } from "../tools/tool.ts";
import { addedContext, blockReason, hookApproved, type SessionHooks } from "./session_hooks.ts";
import { claudeToolName, hookToolNames } from "./tool_names.ts";
import * as path from "../lib/path.ts";

interface HookedCall {
  tool: Tool;
  input: unknown;
  callId: string;
}

/** The tool hooks of a session; undefined when it has none, so calls pay nothing. */
export function toolCallHooks(hooks: SessionHooks) {
  if (!hooks.has("PreToolUse") && !hooks.has("PostToolUse")) return undefined;
  return {
    async before(call: HookedCall, ctx: ToolContext) {
      if (!hooks.has("PreToolUse")) return {};
      const names = await namesOf(call, ctx);
      const outcomes = await hooks.run(
        "PreToolUse",
        { tool_name: claudeToolName(names), tool_input: call.input },
        { toolNames: names, callId: call.callId },
      );
      const block = blockReason(outcomes);
      if (block !== undefined) return { block };
      return hookApproved(outcomes) ? { approved: true } : {};
    },
    async after(
      call: HookedCall,
      ctx: ToolContext,
      result: { output: string; metadata?: Record<string, unknown> },
      seen: ReadonlyMap<string, string>,
    ): Promise<string | undefined> {
      if (!hooks.has("PostToolUse")) return undefined;
      const names = await namesOf(call, ctx);
      const outcomes = await hooks.run(
        "PostToolUse",
        {
          tool_name: claudeToolName(names),
          tool_input: call.input,
          tool_response: { output: result.output, ...result.metadata },
        },
        { toolNames: names, callId: call.callId },
      );
      if (!outcomes.length) return undefined;
      const notes: string[] = [];
      const rewritten = await refreshRewritten(ctx, seen);
      if (rewritten.length) {
        notes.push(
          `A PostToolUse hook changed ${
            rewritten.map((file) => path.relative(ctx.workspace, file) || file).join(", ")
          } after this call; read it again before editing its text.`,
        );
      }
      const block = blockReason(outcomes);
      if (block !== undefined) notes.push(`A PostToolUse hook says: ${block}`);
      const context = addedContext(outcomes, false);
      if (context) notes.push(context);
      return notes.join("\n") || undefined;
    },
  };
}

/** skiff's and Claude Code's names of the call's tool (an MCP tool's from what it declares). */
async function namesOf(call: HookedCall, ctx: ToolContext): Promise<string[]> {
  const builtin = hookToolNames(call.tool.name);
  if (builtin.length > 1) return builtin;
  try {
    const access = await call.tool.declare(call.input, ctx);
    return hookToolNames(call.tool.name, access.mcp);
  } catch {
    return builtin;
  }
}

/**
 * Files whose seen content this call changed (it wrote them) and that a
 * hook changed again since: the ledger takes what is on disk now.
 */
async function refreshRewritten(
  ctx: ToolContext,
  seen: ReadonlyMap<string, string>,
): Promise<string[]> {
  const rewritten: string[] = [];
  for (const [file, hash] of ctx.files.entries()) {
    if (seen.get(file) === hash) continue;
    let content: Uint8Array;
    try {
      content = await Deno.readFile(file);
    } catch {
      continue; // Gone or unreadable: the next edit says so itself.
    }
    if (hashContent(content) === hash) continue;
    ctx.files.markRead(file, content);
    rewritten.push(file);
  }
  return rewritten;
}
