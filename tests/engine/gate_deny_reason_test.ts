/**
 * "No, and here is why": an approval answered with a reason is a refusal in
 * every place an answer is judged, and the person's words reach the model as
 * the call's result. An answer that is not one of the three yeses, whatever
 * its shape, never lets a call run.
 */
import { z } from "zod";
import { assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { buildGate } from "../../src/engine/permission_gate.ts";
import type { SandboxState } from "../../src/engine/launcher.ts";
import type { ApprovalAnswer, EngineIO } from "../../src/engine/types.ts";
import { approves, denialReason } from "../../src/permission/broker.ts";
import type { EventBodies, EventType, SkiffEvent } from "../../src/contracts/events.ts";
import { runToolCall, type ToolCallDeps } from "../../src/engine/loop/tool_call.ts";
import { resultText } from "../../src/engine/loop/history.ts";
import { parseToolInput } from "../../src/tools/registry.ts";
import { type Tool, ToolError } from "../../src/tools/tool.ts";
import { makeContext } from "../tools/_context.ts";
import { testSpec } from "./_spec.ts";

function echoTool(): Tool<{ text: string }> & { executed: string[] } {
  const executed: string[] = [];
  return {
    name: "echo",
    description: "says it back",
    schema: z.object({ text: z.string() }),
    declare: ({ text }) => ({ key: "webfetch", patterns: [`https://example.com/${text}`] }),
    execute: ({ text }) => {
      executed.push(text);
      return Promise.resolve({ output: `said ${text}` });
    },
    executed,
  };
}

const sandboxed = (): SandboxState => ({ approved: false, name: "bwrap" } as SandboxState);

function gateAnswering(
  answer: ApprovalAnswer,
  sandbox = sandboxed(),
  flags = { allow: [] as string[], ask: ["webfetch"], deny: [] as string[], yes: false },
) {
  const events: SkiffEvent[] = [];
  const io: EngineIO = { event: () => {}, ask: () => Promise.resolve(answer) };
  const emit = <K extends EventType>(type: K, body: EventBodies[K]) =>
    void events.push(
      { type, session_id: "s", timestamp: "", ...(body as object) } as unknown as SkiffEvent,
    );
  const spec = testSpec({ interactive: true, flags });
  return { gate: buildGate(spec, io, emit, sandbox), events };
}

Deno.test("deny with a reason: the tool does not run and the model reads the reason", async () => {
  const tool = echoTool();
  const { gate, events } = gateAnswering({ deny: "use the staging database instead" });
  const deps: ToolCallDeps = {
    tools: new Map([[tool.name, tool as Tool]]),
    gate,
    emit: () => {},
    context: (_callId, signal) => ({ ...makeContext("/work/project"), signal }),
    parseInput: parseToolInput,
    truncate: (output) => Promise.resolve(output),
    record: () => {},
    clock: () => 0,
  };
  const part = await runToolCall(
    deps,
    { id: "c1", name: "echo", arguments: JSON.stringify({ text: "drop-prod" }) },
    1,
    new AbortController().signal,
  );
  assertEquals(tool.executed, [], "a refusal with a reason is still a refusal");
  assertEquals(part.error?.code, "denied");
  assertStringIncludes(resultText(part), "The user denied this: use the staging database instead");
  const decided = events.find((event) => event.type === "permission.decided") as
    | { decision: string; source: string }
    | undefined;
  assertEquals(decided?.decision, "deny");
  assertEquals(decided?.source, "user");
  assertEquals(gate.denials().length, 1);
});

Deno.test("an answer of any other shape never approves", async () => {
  for (const odd of [{}, { deny: "" }, { once: true }, "yes", null] as unknown[]) {
    const answer = odd as ApprovalAnswer;
    assertEquals(approves(answer), false, `${JSON.stringify(odd)} approved`);
    const { gate } = gateAnswering(answer);
    const tool = echoTool();
    await assertRejects(
      () =>
        gate.check(
          { tool: tool as Tool, input: { text: "x" }, callId: "c1", turn: 1 },
          makeContext("/work/project"),
        ),
      ToolError,
    );
  }
  assertEquals(denialReason({ deny: "" }), "");
  assertEquals(denialReason("deny"), undefined);
  for (const yes of ["once", "always", "always-here"] as const) assertEquals(approves(yes), true);
});

Deno.test("no sandbox: a deny with a reason refuses the unsandboxed run and carries the reason", async () => {
  const { gate } = gateAnswering({ deny: "install bwrap first" }, {
    refusal: { message: "no sandbox here", warning: "No sandbox is available." },
    approved: false,
    name: "none",
  } as SandboxState, { allow: ["bash(echo *)"], ask: [], deny: [], yes: false });
  const bash: Tool<{ command: string }> = {
    name: "bash",
    description: "runs a command",
    schema: z.object({ command: z.string() }),
    declare: ({ command }) => ({ key: "bash", patterns: [command], commands: [command] }),
    execute: () => Promise.reject(new Error("must not run")),
  };
  const error = await assertRejects(() =>
    gate.check(
      { tool: bash as Tool, input: { command: "echo hi" }, callId: "c1", turn: 1 },
      makeContext("/work/project"),
    )
  );
  assertStringIncludes((error as ToolError).message, "The user denied this: install bwrap first");
});
