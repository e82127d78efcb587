/**
 * One tool call end to end (src/engine/loop/tool_call.ts) with a fake tool, a
 * fake gate and a recording emitter: what the model is told and which events
 * a call leaves, for every way a call can end.
 */
import * as path from "node:path";
import { z } from "zod";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import {
  admitToolCall,
  executeToolCall,
  runToolCall,
  type ToolCallDeps,
  type ToolResultPart,
} from "../../../src/engine/loop/tool_call.ts";
import {
  type Tool,
  type ToolContext,
  ToolError,
  type ToolResult,
} from "../../../src/tools/tool.ts";
import { parseToolInput } from "../../../src/tools/registry.ts";
import { truncateOutput } from "../../../src/tools/truncate.ts";
import type { ToolCall } from "../../../src/provider/types.ts";
import { makeContext } from "../../tools/_context.ts";

/** A tool that says back its text, or does whatever `run` says. */
function echoTool(run?: (input: { text: string }) => Promise<ToolResult>): Tool & {
  executed: { text: string }[];
} {
  const executed: { text: string }[] = [];
  return {
    name: "echo",
    description: "says it back",
    schema: z.object({ text: z.string() }),
    declare: () => ({ kind: "none" }) as never,
    execute: (input) => {
      executed.push(input as { text: string });
      return run
        ? run(input as { text: string })
        : Promise.resolve({ output: `said ${(input as { text: string }).text}`, title: "echo" });
    },
    executed,
  };
}

interface Fakes {
  deps: ToolCallDeps;
  /** Events and records, in the order they happened. */
  log: [string, Record<string, unknown>][];
  asked: { tool: string; input: unknown; callId: string; turn: number }[];
}

function fakes(
  tools: Tool[],
  options: {
    verdict?: { allowed: true } | { allowed: false; reason: string };
    truncate?: ToolCallDeps["truncate"];
  } = {},
): Fakes {
  const log: [string, Record<string, unknown>][] = [];
  const asked: Fakes["asked"] = [];
  let now = 1000;
  const deps: ToolCallDeps = {
    tools: new Map(tools.map((tool) => [tool.name, tool])),
    gate: {
      check: (call) => {
        asked.push({
          tool: call.tool.name,
          input: call.input,
          callId: call.callId,
          turn: call.turn,
        });
        return Promise.resolve(options.verdict ?? { allowed: true });
      },
    },
    emit: (type, body) => log.push([type, body as Record<string, unknown>]),
    context: (_callId, signal) => ({ ...makeContext("/nowhere"), signal }),
    parseInput: parseToolInput,
    truncate: options.truncate ?? ((output) => Promise.resolve(output)),
    record: (part) => log.push(["record", part as unknown as Record<string, unknown>]),
    clock: () => (now += 5),
  };
  return { deps, log, asked };
}

const call = (name: string, args: unknown): ToolCall => ({
  id: "call_1",
  name,
  arguments: typeof args === "string" ? args : JSON.stringify(args),
});

const live = () => new AbortController().signal;
const types = (log: Fakes["log"]) => log.map(([type]) => type);
const completed = (log: Fakes["log"]) => log.find(([type]) => type === "tool.completed")![1];

Deno.test("a call that works: gated with its parsed input, run, recorded, then reported", async () => {
  const tool = echoTool();
  const { deps, log, asked } = fakes([tool]);
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 4, live());
  assertEquals(part.ok, true);
  assertEquals(part.output, "said hi");
  assertEquals(part.metadata, { title: "echo" });
  assertEquals(asked, [{ tool: "echo", input: { text: "hi" }, callId: "call_1", turn: 4 }]);
  assertEquals(types(log), ["tool.started", "record", "tool.completed"]);
  assertEquals(log[0][1], { turn: 4, call_id: "call_1", tool: "echo", input: { text: "hi" } });
  const done = completed(log);
  assertEquals(done.ok, true);
  assertEquals(done.title, "echo");
  assertEquals(done.output, "said hi");
  assertEquals(done.duration_ms, 5);
});

Deno.test("an unknown tool is named with the tools there are; nothing is asked or run", async () => {
  const tool = echoTool();
  const { deps, log, asked } = fakes([tool]);
  const part = await runToolCall(deps, call("frobnicate", {}), 1, live());
  assertEquals(part.ok, false);
  assertEquals(part.error, {
    code: "not_found",
    message: 'There is no tool named "frobnicate".',
    hint: "Available tools: echo.",
  });
  assertEquals(asked, []);
  assertEquals(tool.executed, []);
  assertEquals(types(log), ["tool.started", "record", "tool.completed"]);
  assertEquals(completed(log).ok, false);
});

Deno.test("invalid arguments echo the tool's schema; the policy is not asked", async () => {
  const tool = echoTool();
  for (const args of ['{"txt": 1}', "{not json"]) {
    const { deps, log, asked } = fakes([tool]);
    const part = await runToolCall(deps, call("echo", args), 1, live());
    assertEquals(part.error?.code, "bad_input", args);
    assertStringIncludes(part.error!.message, "JSON Schema");
    assertStringIncludes(part.error!.message, '"text"');
    assertEquals(part.error?.hint, "Call the tool again with arguments that match the schema.");
    assertEquals(asked, []);
    // The model's raw arguments are still announced, parsed when they are JSON.
    assertEquals(log[0][1].input, args === "{not json" ? "{not json" : { txt: 1 });
    assertStringIncludes(String(completed(log).output), "JSON Schema");
  }
  assertEquals(tool.executed, []);
});

Deno.test("a denied call is not run; the reason is what the model reads", async () => {
  const tool = echoTool();
  const { deps, log } = fakes([tool], {
    verdict: { allowed: false, reason: "echo is denied by --deny echo" },
  });
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 2, live());
  assertEquals(part.error, { code: "denied", message: "echo is denied by --deny echo" });
  assertEquals(tool.executed, []);
  assertStringIncludes(String(completed(log).output), "echo is denied by --deny echo");
  assertEquals(completed(log).error, part.error);
});

Deno.test("a tool's own error keeps its code, hint and metadata", async () => {
  const tool = echoTool(() =>
    Promise.reject(new ToolError("no_match", "nothing matched", "Read the file first.", { n: 1 }))
  );
  const { deps, log } = fakes([tool]);
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 1, live());
  assertEquals(part.error, {
    code: "no_match",
    message: "nothing matched",
    hint: "Read the file first.",
  });
  assertEquals(part.metadata, { n: 1 });
  assertEquals(completed(log).metadata, { n: 1 });
  assertStringIncludes(String(completed(log).output), "Read the file first.");
});

Deno.test("a thrown exception becomes a failed result, the sandbox's refusal explained", async () => {
  const cases: [unknown, string, string][] = [
    [new Error("disk on fire"), "failed", "disk on fire"],
    [new Deno.errors.NotCapable("Requires read access"), "not_capable", "skiff's sandbox refused"],
    [new Deno.errors.NotFound("no such file"), "not_found", "no such file"],
    ["a bare string", "failed", "a bare string"],
  ];
  for (const [thrown, code, message] of cases) {
    const { deps, log } = fakes([echoTool(() => Promise.reject(thrown))]);
    const part = await runToolCall(deps, call("echo", { text: "hi" }), 1, live());
    assertEquals(part.ok, false);
    assertEquals(part.error?.code, code);
    assertStringIncludes(part.error!.message, message);
    assertEquals(types(log), ["tool.started", "record", "tool.completed"]);
  }
});

Deno.test("a long output is cut for the model and spilled whole", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-tool-call-" });
  try {
    const whole = Array.from({ length: 5000 }, (_, i) => `line ${i}`).join("\n");
    const { deps, log } = fakes([echoTool(() => Promise.resolve({ output: whole }))], {
      truncate: (output, callId) =>
        truncateOutput(output, { callId, sessionId: "ses_test", dataDir, limit: 1000 }),
    });
    const part = await runToolCall(deps, call("echo", { text: "hi" }), 1, live());
    assert(part.output.length < 2000, `kept ${part.output.length} characters`);
    assertStringIncludes(part.output, "line 0");
    assertStringIncludes(part.output, "line 4999");
    assertEquals(completed(log).output, part.output);
    const spill = path.join(dataDir, "tool-output", "ses_test", "call_1.txt");
    assertStringIncludes(part.output, "call_1.txt");
    assertEquals(await Deno.readTextFile(spill), whole);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("a stopped session asks and runs nothing more", async () => {
  const tool = echoTool();
  const { deps, log, asked } = fakes([tool]);
  const stopped = new AbortController();
  stopped.abort();
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 1, stopped.signal);
  assertEquals(part.error?.code, "failed");
  assertStringIncludes(part.error!.message, "Not run: the session was stopped");
  assertEquals(asked, []);
  assertEquals(tool.executed, []);
  assertEquals(types(log), ["tool.started", "record", "tool.completed"]);
});

Deno.test("stopped while the policy decided: an admitted call does not start", async () => {
  const tool = echoTool();
  const { deps, log } = fakes([tool]);
  const controller = new AbortController();
  const admitted = await admitToolCall(deps, call("echo", { text: "hi" }), 1, controller.signal);
  assert("call" in admitted, "the call should have been admitted");
  assertEquals(types(log), ["tool.started"]);
  controller.abort();
  const part: ToolResultPart = await executeToolCall(deps, admitted.call);
  assertStringIncludes(part.error!.message, "Not run: the session was stopped");
  assertEquals(tool.executed, []);
  assertEquals(types(log), ["tool.started", "record", "tool.completed"]);
});

Deno.test("the tool's context carries the call's signal: aborting reaches a running tool", async () => {
  const controller = new AbortController();
  let seen: AbortSignal | undefined;
  const tool = echoTool(() => {
    controller.abort();
    return Promise.reject(new ToolError("failed", "stopped", undefined));
  });
  const { deps } = fakes([tool]);
  deps.context = (_callId, signal) => {
    seen = signal;
    return { ...makeContext("/nowhere"), signal };
  };
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 1, controller.signal);
  assertEquals(part.error?.code, "failed");
  assert(seen?.aborted, "the tool's signal is the call's");
});

Deno.test("a call's tool is prepared with the call's context before the policy is asked", async () => {
  const order: string[] = [];
  const contexts: unknown[] = [];
  const tool: Tool = {
    ...echoTool(),
    prepare: (ctx) => {
      order.push("prepare");
      contexts.push(ctx);
    },
  };
  const { deps } = fakes([tool]);
  const checked = deps.gate.check;
  deps.gate = {
    check: (call, ctx) => {
      order.push("policy");
      contexts.push(ctx);
      return checked(call, ctx);
    },
  };
  const part = await runToolCall(
    deps,
    { id: "c7", name: "echo", arguments: '{"text":"hi"}' },
    1,
    new AbortController().signal,
  );
  assertEquals([part.ok, part.output], [true, "said hi"]);
  assertEquals(order, ["prepare", "policy"]);
  assert(contexts[0] !== undefined && contexts[0] === contexts[1], "not the call's own context");
});

Deno.test("the gate's context is left as it was; the running call puts more to the gate through its own", async () => {
  const judged: unknown[] = [];
  let running: ToolContext | undefined;
  const tool: Tool = {
    ...echoTool(),
    execute: async (_input, ctx) => {
      running = ctx;
      await ctx.authorize?.({ key: "webfetch", patterns: ["https://example.com/next"] });
      return { output: "fetched" };
    },
  };
  const { deps } = fakes([tool]);
  let seen: ToolContext | undefined;
  deps.gate = {
    check: (_call, ctx) => {
      seen = ctx;
      return Promise.resolve({ allowed: true });
    },
    authorize: (gateCall, access) => {
      judged.push([gateCall.callId, gateCall.turn, access.patterns[0]]);
      return Promise.resolve();
    },
  };
  const part = await runToolCall(deps, call("echo", { text: "hi" }), 3, live());
  assert(part.ok);
  assertEquals(judged, [["call_1", 3, "https://example.com/next"]]);
  assertEquals(
    seen?.authorize,
    undefined,
    "the gate wrote nothing into the context it judged with",
  );
  assert(running && running !== seen);
});

Deno.test("typed by the person: the flag reaches the gate only from the caller, and a hook's block still refuses", async () => {
  const tool = echoTool();
  const { deps } = fakes([tool]);
  const seen: (boolean | undefined)[] = [];
  deps.gate = {
    check: (gateCall) => {
      seen.push(gateCall.typedByPerson);
      return Promise.resolve({ allowed: true });
    },
  };
  // The call's own arguments claim it; only the caller's origin counts.
  await runToolCall(deps, call("echo", { text: "hi", typedByPerson: true }), 0, live());
  await runToolCall(deps, call("echo", { text: "hi" }), 0, live(), { typedByPerson: true });
  assertEquals(seen, [undefined, true]);
  deps.hooks = {
    before: () => Promise.resolve({ block: "no commands today" }),
    after: () => Promise.resolve(undefined),
  };
  const blocked = await runToolCall(deps, call("echo", { text: "x" }), 0, live(), {
    typedByPerson: true,
  });
  assertEquals(blocked.ok, false);
  assertStringIncludes(blocked.error?.message ?? "", "no commands today");
  assertEquals(tool.executed.length, 2);
});
