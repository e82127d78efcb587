import assert from "node:assert/strict";
import * as path from "node:path";
import { builtinAgents } from "../../../src/definitions/agents/builtin.ts";
import { subagentsOf } from "../../../src/definitions/agents/filter_tools.ts";
import {
  createTaskTool,
  isOwnedPath,
  type SubagentRunner,
  type SubagentRunRequest,
} from "../../../src/tools/session/task.ts";
import { type ToolContext, ToolError } from "../../../src/tools/tool.ts";

function context(workspace: string, callId = "call-1"): ToolContext {
  // Only the fields the task tool reads; the rest would come from the session.
  return {
    sessionId: "parent",
    callId,
    workspace,
    signal: new AbortController().signal,
  } as ToolContext;
}

function workspace(): string {
  return Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-task-" }));
}

const subagents = subagentsOf(builtinAgents());

Deno.test("task description lists the subagents with their descriptions", () => {
  const tool = createTaskTool({ run: () => Promise.reject(new Error("unused")) }, subagents);
  assert.match(tool.description, /- general: General-purpose subagent/);
  assert.match(tool.description, /- explore: Fast read-only subagent/);
  assert.ok(!tool.description.includes("- build:"), "primary agents are not offered");
});

Deno.test("task runs the child and reports its answer and files", async () => {
  const root = workspace();
  const requests: SubagentRunRequest[] = [];
  const runner: SubagentRunner = {
    run(request) {
      requests.push(request);
      return Promise.resolve({
        sessionId: "child-1",
        text: "Found it in src/a.ts.",
        filesRead: [path.join(root, "src", "a.ts")],
        filesWritten: [path.join(root, "src", "auth", "b.ts")],
      });
    },
  };
  const tool = createTaskTool(runner, subagents);
  const input = {
    description: "find auth",
    prompt: "Find where auth happens",
    subagent_type: "explore",
    owns: ["src/auth"],
  };
  const access = await tool.declare(input, context(root));
  assert.equal(access.key, "task");
  assert.deepEqual(access.patterns, ["explore"]);
  const result = await tool.execute(input, context(root));
  assert.match(result.output, /Found it in src\/a\.ts\./);
  assert.match(result.output, /Files read: src\/a\.ts/);
  assert.match(result.output, /Files written: src\/auth\/b\.ts/);
  assert.equal(result.metadata?.sessionId, "child-1");
  assert.equal(requests[0].agent.name, "explore");
  assert.equal(requests[0].parentSessionId, "parent");
  assert.deepEqual(requests[0].owns, [path.join(root, "src", "auth")]);
  assert.ok(isOwnedPath(requests[0].owns, path.join(root, "src", "auth", "x.ts")));
  assert.ok(!isOwnedPath(requests[0].owns, path.join(root, "src", "other.ts")));
});

Deno.test("owns outside the workspace (directly or through a symlink) is refused", async () => {
  const root = workspace();
  const outside = Deno.makeTempDirSync();
  Deno.symlinkSync(outside, path.join(root, "link"));
  let ran = false;
  const tool = createTaskTool({
    run() {
      ran = true;
      return Promise.resolve({ sessionId: "x", text: "", filesRead: [], filesWritten: [] });
    },
  }, subagents);
  for (const owned of ["../elsewhere", "/etc", "link/file.txt"]) {
    await assert.rejects(
      () =>
        tool.execute(
          { description: "d", prompt: "p", subagent_type: "general", owns: [owned] },
          context(root),
        ),
      (error: unknown) => error instanceof ToolError && error.code === "bad_input",
    );
  }
  assert.equal(ran, false, "nothing starts when owns is refused");
});

Deno.test("an unknown subagent is a not_found error naming the choices", async () => {
  const tool = createTaskTool({ run: () => Promise.reject(new Error("unused")) }, subagents);
  await assert.rejects(
    () =>
      tool.execute({ description: "d", prompt: "p", subagent_type: "build" }, context(workspace())),
    (error: unknown) =>
      error instanceof ToolError && error.code === "not_found" &&
      /general, explore/.test(error.hint ?? ""),
  );
});

Deno.test("several task calls run at the same time", async () => {
  const root = workspace();
  let running = 0;
  let peak = 0;
  const runner: SubagentRunner = {
    async run(request) {
      running++;
      peak = Math.max(peak, running);
      await new Promise((resolve) => setTimeout(resolve, 50));
      running--;
      return {
        sessionId: request.callId,
        text: `done ${request.description}`,
        filesRead: [],
        filesWritten: [],
      };
    },
  };
  const tool = createTaskTool(runner, subagents);
  const results = await Promise.all(
    ["one", "two", "three"].map((name) =>
      tool.execute(
        { description: name, prompt: "p", subagent_type: "general" },
        context(root, name),
      )
    ),
  );
  assert.equal(peak, 3);
  assert.deepEqual(results.map((result) => result.metadata?.sessionId), ["one", "two", "three"]);
});
