/**
 * The assembled gate: policy verdicts become permission events and denials,
 * and with no OS sandbox a command never runs silently unsandboxed — a
 * headless run refuses it with the way out, an interactive one asks first.
 */
import { z } from "zod";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../support/assert.ts";
import { buildGate } from "../../src/engine/permission_gate.ts";
import type { SandboxState } from "../../src/engine/launcher.ts";
import { chooseSessionLauncher } from "../../src/engine/launcher.ts";
import type { ApprovalRequest, EngineIO } from "../../src/engine/types.ts";
import type { SkiffEvent } from "../../src/contracts/events.ts";
import { type Tool, ToolError } from "../../src/tools/tool.ts";
import { makeContext } from "../tools/_context.ts";
import { testSpec } from "./_spec.ts";

const commandTool: Tool<{ command: string }> = {
  name: "bash",
  description: "runs a command",
  schema: z.object({ command: z.string() }),
  declare: ({ command }) => ({ key: "bash", patterns: [command], commands: [command] }),
  execute: () => Promise.resolve({ output: "ran" }),
};

const noSandbox = (): SandboxState => ({
  refusal: {
    message:
      "Cannot run commands in 'workspace-write' mode: install bubblewrap (apt-get install bubblewrap). Or choose `--sandbox full-access`.",
    warning: "No sandbox is available.",
  },
  approved: false,
  name: "none",
});

function harness(answer: "once" | "deny" = "once") {
  const events: SkiffEvent[] = [];
  const asked: ApprovalRequest[] = [];
  const io: EngineIO = {
    event: () => {},
    ask: (request) => {
      asked.push(request);
      return Promise.resolve(answer);
    },
  };
  const emit = (type: string, body: Record<string, unknown>) =>
    events.push({ type, session_id: "s", timestamp: "", ...body } as unknown as SkiffEvent);
  return { io, events, asked, emit };
}

const call = (command: string) => ({
  tool: commandTool,
  input: { command },
  callId: "c1",
  turn: 1,
});

Deno.test("headless with no sandbox: an allowed command is refused, with how to fix it", async () => {
  const engineSpec = testSpec({
    flags: { allow: ["bash(echo *)"], ask: [], deny: [], yes: false },
  });
  const { io, events, asked, emit } = harness();
  const state = noSandbox();
  const gate = buildGate(engineSpec, io, emit, state);
  const error = await assertRejects(() =>
    gate.check(call("echo hi"), makeContext("/work/project"))
  );
  assert(error instanceof ToolError);
  assertEquals(error.code, "denied");
  assertStringIncludes(error.message, "apt-get install bubblewrap");
  assertStringIncludes(error.message, "full-access");
  assertEquals(asked.length, 0, "nobody is asked in a headless run");
  assertEquals(state.approved, false);
  assertEquals(gate.denials().length, 1);
  assert(events.some((event) => event.type === "permission.decided"));
});

Deno.test("--yes does not stand in for accepting an unsandboxed run", async () => {
  const engineSpec = testSpec({ flags: { allow: [], ask: [], deny: [], yes: true } });
  const { io, emit } = harness();
  const gate = buildGate(engineSpec, io, emit, noSandbox());
  await assertRejects(() => gate.check(call("echo hi"), makeContext("/work/project")));
});

Deno.test("interactive with no sandbox: the person is warned and asked; yes runs it", async () => {
  const engineSpec = testSpec({
    interactive: true,
    flags: { allow: ["bash(echo *)"], ask: [], deny: [], yes: false },
  });
  const { io, asked, emit } = harness("once");
  const state = noSandbox();
  const gate = buildGate(engineSpec, io, emit, state);
  const verdict = await gate.check(call("echo hi"), makeContext("/work/project"));
  assertEquals(verdict, { allowed: true });
  assertEquals(asked.length, 1);
  assertStringIncludes(asked[0].access.preview ?? "", "No sandbox is available.");
  assertEquals(state.approved, true);
});

Deno.test("interactive with no sandbox: no runs nothing", async () => {
  const engineSpec = testSpec({
    interactive: true,
    flags: { allow: ["bash(echo *)"], ask: [], deny: [], yes: false },
  });
  const { io, emit } = harness("deny");
  const state = noSandbox();
  const gate = buildGate(engineSpec, io, emit, state);
  await assertRejects(() => gate.check(call("echo hi"), makeContext("/work/project")));
  assertEquals(state.approved, false);
});

Deno.test("the unsandboxed launcher itself refuses until a person said yes", async () => {
  const warnings: string[] = [];
  const none = () => Promise.resolve({ bwrap: null, sandboxExec: null });
  const { launcher, state } = await chooseSessionLauncher(testSpec(), warnings, none);
  assert(state.refusal, "no sandbox: a refusal state");
  assertEquals(state.readOnly, undefined, "no contained helper commands either");
  assertStringIncludes(warnings[0], "No sandbox");
  const error = await assertRejects(() => launcher.prepare("echo hi", "/work/project"));
  assertEquals((error as ToolError).code, "denied");
  state.approved = true;
  const prepared = await launcher.prepare("echo hi", "/work/project");
  assertEquals(prepared.argv.slice(-2), ["-c", "echo hi"]);
  assertEquals("OPENAI_API_KEY" in prepared.env, false);
});

Deno.test("full-access needs no sandbox and runs a plain shell", async () => {
  const engineSpec = testSpec({
    sandbox: { mode: "full-access", network: false, addDirs: [], env: [] },
  });
  const { launcher, state } = await chooseSessionLauncher(engineSpec, []);
  assertEquals(state.refusal, undefined);
  const prepared = await launcher.prepare("echo hi", "/");
  assertEquals(prepared.argv.slice(-2), ["-c", "echo hi"]);
});

Deno.test("a deny rule wins over --yes and is reported", async () => {
  const engineSpec = testSpec({ flags: { allow: [], ask: [], deny: ["bash(rm *)"], yes: true } });
  const { io, emit } = harness();
  const gate = buildGate(engineSpec, io, emit, { approved: false, name: "bwrap" });
  const error = await assertRejects(() =>
    gate.check(call("ls && rm -rf x"), makeContext("/work/project"))
  );
  assertEquals((error as ToolError).code, "denied");
  assertEquals(gate.denials()[0].patterns, ["ls && rm -rf x"]);
});

Deno.test("permission.asked goes out when the person is asked, before the answer", async () => {
  const engineSpec = testSpec({
    interactive: true,
    flags: { allow: [], ask: ["bash(echo *)"], deny: [], yes: false },
  });
  const { events, emit } = harness();
  const seenWhenAsked: string[][] = [];
  const io: EngineIO = {
    event: () => {},
    ask: () => {
      seenWhenAsked.push(events.map((event) => event.type));
      return Promise.resolve("once");
    },
  };
  const gate = buildGate(engineSpec, io, emit, { approved: false, name: "bwrap" });
  await gate.check(call("echo hi"), makeContext("/work/project"));
  assertEquals(seenWhenAsked, [["permission.asked"]]);
  assertEquals(events.map((event) => event.type), ["permission.asked", "permission.decided"]);
  const asked = events[0] as Extract<SkiffEvent, { type: "permission.asked" }>;
  assertEquals([asked.turn, asked.call_id, asked.key], [1, "c1", "bash"]);
});

Deno.test("interactive with no sandbox: the unsandboxed question is an asked/decided pair", async () => {
  const engineSpec = testSpec({
    interactive: true,
    flags: { allow: ["bash(echo *)"], ask: [], deny: [], yes: false },
  });
  const { io, events, emit } = harness("once");
  const gate = buildGate(engineSpec, io, emit, noSandbox());
  await gate.check(call("echo hi"), makeContext("/work/project"));
  assertEquals(events.map((event) => event.type), ["permission.asked", "permission.decided"]);
  const decided = events[1] as Extract<SkiffEvent, { type: "permission.decided" }>;
  assertEquals([decided.decision, decided.source], ["allow", "user"]);
});
