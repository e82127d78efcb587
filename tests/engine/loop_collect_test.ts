/**
 * The loop offers the engine's isolate a garbage collection before each
 * model request (lib/collect.ts decides whether to run one), so a
 * long run's memory does not climb with garbage V8 has not yet collected.
 */
import { assertEquals } from "../support/assert.ts";
import { type LoopDeps, runLoop } from "../../src/engine/loop/loop.ts";
import type { ChatProvider, ChatResponse } from "../../src/provider/types.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { emptyUsage } from "../../src/contracts/events.ts";
import { fakeReadTool } from "../support/read_session.ts";

/** Calls `read` on turns 1..reads, then answers; logs each request in `log`. */
function scriptedProvider(reads: number, log: string[]): ChatProvider {
  let turn = 0;
  return {
    baseURL: "http://mock",
    stream: () => {
      turn++;
      log.push(`request ${turn}`);
      const response: ChatResponse = turn <= reads
        ? {
          text: "",
          toolCalls: [{ id: `c${turn}`, name: "read", arguments: `{"path":"f${turn}.ts"}` }],
          finishReason: "tool_calls",
          usage: emptyUsage(),
        }
        : { text: "Done.", toolCalls: [], finishReason: "stop", usage: emptyUsage() };
      return Promise.resolve(response);
    },
  };
}

function deps(provider: ChatProvider, log: string[]): LoopDeps {
  return {
    provider,
    tools: [fakeReadTool(1_000)],
    schemas: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
    gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
    recorder: {
      userMessage: () => {},
      assistantMessage: () => {},
      toolResult: () => log.push("result stored"),
      stepUsage: () => {},
    },
    emit: () => {},
    context: () => ({}) as ToolContext,
    parseInput: (_tool, raw) => JSON.parse(raw),
    truncate: (output) => Promise.resolve(output),
    collectGarbage: () => log.push("collect?"),
  };
}

Deno.test("a garbage collection is offered before each model request, after the turn's results", async () => {
  const log: string[] = [];
  const outcome = await runLoop(deps(scriptedProvider(2, log), log), {
    model: "m",
    systemPrompt: "s",
    history: [],
    prompt: "Read two files.",
    signal: new AbortController().signal,
  });
  assertEquals(outcome.kind, "completed");
  assertEquals(log, [
    "collect?",
    "request 1",
    "result stored",
    "collect?",
    "request 2",
    "result stored",
    "collect?",
    "request 3",
  ]);
});
