/**
 * A Claude Code plugin agent (its one-line description is not strict YAML)
 * reaches the model through `skiff run`: the task tool offers it by name and
 * description, and no "invalid YAML" warning is printed.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { PLUGIN_AGENT } from "../support/plugin_files.ts";

type Request = { tools?: { function: { name: string; description: string } }[] };

Deno.test("a plugin agent with examples in its description is offered as a subagent", async () => {
  await withMockSandbox([{ text: "ok" }], async (sandbox, mock) => {
    const file = `${sandbox.workspace}/.claude/agents/tidy-checker.md`;
    await Deno.mkdir(`${sandbox.workspace}/.claude/agents`, { recursive: true });
    await Deno.writeTextFile(file, PLUGIN_AGENT);
    const run = await runSkiff(["run", "check it"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assert(!run.stderr.includes("invalid YAML"), run.stderr);
    const task = (mock.requests[0] as Request).tools?.find((tool) => tool.function.name === "task");
    assert(task, "the task tool is offered");
    assertStringIncludes(
      task.function.description,
      "tidy-checker: Use this agent when a change is finished",
    );
  });
});
