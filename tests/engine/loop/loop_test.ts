/**
 * The loop's time limit: `--max-time` stops a model request (or a command)
 * that is still running when the deadline passes, as a limit (exit 5), and a
 * person's Ctrl-C stays an interruption.
 */
import { assert, assertEquals } from "../../support/assert.ts";
import { type LoopDeps, type LoopOptions, runLoop } from "../../../src/engine/loop/loop.ts";
import type { ChatProvider, ChatResponse } from "../../../src/provider/types.ts";
import { emptyUsage } from "../../../src/contracts/events.ts";
import type { Tool, ToolContext } from "../../../src/tools/tool.ts";
import { z } from "zod";
import { makeContext } from "../../tools/_context.ts";

/** Answers after `ms`, unless the request is aborted first. */
function slowProvider(ms: number): ChatProvider {
  return {
    baseURL: "http://mock",
    stream: (_request, _handlers, signal) =>
      new Promise<ChatResponse>((resolve, reject) => {
        const timer = setTimeout(
          () => resolve({ text: "late", toolCalls: [], finishReason: "stop", usage: emptyUsage() }),
          ms,
        );
        signal?.addEventListener("abort", () => {
          clearTimeout(timer);
          reject(new DOMException("aborted", "AbortError"));
        });
      }),
  };
}

function deps(provider: ChatProvider): LoopDeps {
  return {
    provider,
    tools: [],
    schemas: [],
    gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
    recorder: {
      userMessage: () => {},
      assistantMessage: () => {},
      toolResult: () => {},
      stepUsage: () => {},
    },
    emit: () => {},
    context: () => {
      throw new Error("no tools in this test");
    },
    parseInput: () => ({}),
    truncate: (output) => Promise.resolve(output),
  };
}

function options(overrides: Partial<LoopOptions>): LoopOptions {
  return {
    model: "m",
    systemPrompt: "s",
    history: [],
    prompt: "p",
    maxTurns: 5,
    signal: new AbortController().signal,
    ...overrides,
  };
}

Deno.test("the deadline cuts a model request still running: a limit, not a wait", async () => {
  const started = Date.now();
  const outcome = await runLoop(
    deps(slowProvider(3000)),
    options({ deadline: Date.now() + 100 }),
  );
  assertEquals(outcome.kind, "limit");
  assert(Date.now() - started < 2000, `took ${Date.now() - started} ms`);
});

Deno.test("Ctrl-C during a request with a deadline is still an interruption", async () => {
  const controller = new AbortController();
  setTimeout(() => controller.abort(), 50);
  const outcome = await runLoop(
    deps(slowProvider(3000)),
    options({ deadline: Date.now() + 60_000, signal: controller.signal }),
  );
  assertEquals(outcome.kind, "interrupted");
});

Deno.test("a call approved before a Ctrl-C that came during the policy check never starts", async () => {
  const controller = new AbortController();
  const executed: string[] = [];
  const tool = (name: string): Tool => ({
    name,
    description: name,
    schema: z.object({}),
    declare: () => ({ key: name, patterns: [] }),
    execute: () => {
      executed.push(name);
      return Promise.resolve({ output: "ran" });
    },
  });
  let step = 0;
  const provider: ChatProvider = {
    baseURL: "http://mock",
    stream: () =>
      Promise.resolve({
        text: "",
        toolCalls: step++ === 0
          ? [{ id: "c1", name: "write", arguments: "{}" }, {
            id: "c2",
            name: "bash",
            arguments: "{}",
          }]
          : [],
        finishReason: "stop",
        usage: emptyUsage(),
      }),
  };
  const results: { call_id: string; ok: boolean }[] = [];
  const outcome = await runLoop({
    ...deps(provider),
    tools: [tool("write"), tool("bash")],
    recorder: { ...deps(provider).recorder, toolResult: (part) => results.push(part) },
    context: () => ({}) as ToolContext,
    gate: {
      check: ({ tool }) => {
        if (tool.name === "bash") controller.abort(); // Ctrl-C while this one is judged
        return Promise.resolve({ allowed: true });
      },
      denials: () => [],
    },
  }, options({ signal: controller.signal }));
  assertEquals(outcome.kind, "interrupted");
  assertEquals(executed, []);
  assertEquals(results.map((result) => result.ok), [false, false]);
});

Deno.test("a model repeating a refused call is stopped after three identical refused turns", async () => {
  let requests = 0;
  const provider: ChatProvider = {
    baseURL: "http://mock",
    stream: () => {
      requests++;
      // Without the guard this would go on for 100 turns (or forever).
      const answer: ChatResponse = requests > 100
        ? { text: "gave up", toolCalls: [], finishReason: "stop", usage: emptyUsage() }
        : {
          text: "",
          toolCalls: [{ id: `c${requests}`, name: "echo", arguments: '{"text":"again"}' }],
          finishReason: "tool_calls",
          usage: emptyUsage(),
        };
      return Promise.resolve(answer);
    },
  };
  const echo = {
    name: "echo",
    description: "echo",
    parameters: z.object({ text: z.string() }),
    declare: () => ({ key: "echo", patterns: ["*"] }),
    execute: () => Promise.resolve({ output: "never" }),
  } as unknown as Tool;
  const refusing: LoopDeps = {
    ...deps(provider),
    tools: [echo],
    gate: {
      check: () => Promise.resolve({ allowed: false, reason: "refused by a rule" }),
      denials: () => [],
    },
    context: () => ({}) as ToolContext,
  };
  const outcome = await runLoop(refusing, options({ maxTurns: undefined }));
  assertEquals(outcome.kind, "limit");
  assertEquals(outcome.turns, 3);
  if (outcome.kind === "limit") {
    assert(outcome.reason.includes("refused or failed"), outcome.reason);
  }
});

Deno.test("a tool the model begins to call is prepared while its arguments stream", async () => {
  const prepared: string[] = [];
  const tool = (name: string): Tool => ({
    name,
    description: name,
    schema: z.object({}),
    declare: () => ({ key: name, patterns: [] }),
    execute: () => Promise.resolve({ output: "" }),
    // With the session's context, so a call can warm what it runs in there (a sandbox).
    prepare: (ctx) => void prepared.push(ctx?.launcher ? name : `${name} without a context`),
  });
  const provider: ChatProvider = {
    baseURL: "http://mock",
    stream: (_request, handlers) => {
      // What the assembler does as a call's arguments begin; an unknown name prepares nothing.
      handlers.onToolName?.("bash");
      handlers.onToolName?.("no_such_tool");
      assertEquals(prepared, ["bash"], "prepared before the answer was complete");
      return Promise.resolve({
        text: "done",
        toolCalls: [],
        finishReason: "stop",
        usage: emptyUsage(),
      });
    },
  };
  const outcome = await runLoop(
    {
      ...deps(provider),
      tools: [tool("bash"), tool("read")],
      context: (_callId, signal) => ({ ...makeContext("/nowhere"), signal }),
    },
    options({}),
  );
  assertEquals(outcome.kind, "completed");
  assertEquals(prepared, ["bash"]);
});
