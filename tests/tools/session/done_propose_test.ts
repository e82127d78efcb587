/**
 * The definition of done: `done_propose` records the plan agent's criteria
 * and touches nothing; after the plan turn the harness runs each once and
 * writes them, with how each stands now, to `.skiff/done.json`; a build
 * agent cannot change that file (neither with the file tools nor with a
 * command), and `skiff run --done` holds the work to it.
 */
import * as path from "node:path";
import { assert, assertEquals, assertRejects, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";
import { hasBwrap } from "../../escape/e2e_support.ts";
import { createDoneProposeTool, type DoneProposal } from "../../../src/tools/session/mod.ts";
import type { ToolContext } from "../../../src/tools/tool.ts";
import type { DoneFile } from "../../../src/engine/verify/done_criteria.ts";

const NO_CONTEXT = {} as ToolContext;

Deno.test("done_propose records the criteria, declares no write and refuses two with one name", async () => {
  let recorded: DoneProposal[] = [];
  const tool = createDoneProposeTool((criteria) => recorded = criteria);
  const input = {
    criteria: [{ name: "tests pass", command: "npm test", why: "the change is covered" }],
  };
  const access = await tool.declare(input, NO_CONTEXT);
  assertEquals(access.key, "done_propose");
  assertEquals(access.writes, undefined, "the tool writes nothing itself");
  const result = await tool.execute(input, NO_CONTEXT);
  assertEquals(recorded, input.criteria);
  assertStringIncludes(result.output, "`npm test` → exit 0");
  assertStringIncludes(result.output, ".skiff/done.json");

  const twice = { criteria: [input.criteria[0], { ...input.criteria[0], command: "make" }] };
  await assertRejects(
    () => tool.execute(twice, NO_CONTEXT),
    Error,
    'two criteria are named "tests pass"',
  );
});

function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: done_propose_test runs with --sandbox full-access");
  return ["--sandbox", "full-access"];
}

/** A command the plan agent's own rules allow (`cat *`), so the plan run measures it. */
const CRITERION = {
  name: "fixed",
  command: "cat fixed.txt",
  expects: "fixed-ok",
  why: "the task is to create fixed.txt",
};

const PLAN: MockTurn[] = [
  { toolCalls: [{ name: "done_propose", arguments: { criteria: [CRITERION] } }] },
  { text: "Proposed one criterion." },
];

/** The build run: tries to rewrite the criteria both ways, then does the work. */
const BUILD: MockTurn[] = [
  {
    toolCalls: [
      { name: "write", arguments: { file_path: ".skiff/done.json", content: '{"criteria":[]}' } },
    ],
  },
  {
    toolCalls: [{
      name: "bash",
      arguments: { command: `echo '{"criteria":[]}' > .skiff/done.json` },
    }],
  },
  { text: "I am done." },
  {
    toolCalls: [{ name: "write", arguments: { file_path: "fixed.txt", content: "fixed-ok\n" } }],
  },
  { text: "Now it is done." },
];

Deno.test("plan's done_propose is measured into .skiff/done.json, a build run cannot change it, --done gates on it", async () => {
  await withMockSandbox([...PLAN, ...BUILD], async (sandbox, mock) => {
    const doneFile = path.join(sandbox.workspace, ".skiff", "done.json");
    const plan = await runSkiff(
      ["run", ...sandboxFlags(), "--agent", "plan", "how will we know fixed.txt is done?"],
      sandbox,
    );
    assertEquals(plan.code, 0, plan.stdout + plan.stderr);
    assertStringIncludes(plan.stderr, "wrote 1 done criteria");
    const planTools = (mock.requests[0].tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assert(planTools.includes("done_propose"), "the plan agent has done_propose");
    const written = await Deno.readTextFile(doneFile);
    const done = JSON.parse(written) as DoneFile;
    assertEquals(done.criteria.length, 1);
    assertEquals(done.criteria[0].command, CRITERION.command);
    assertEquals(done.criteria[0].expects, "fixed-ok");
    assertEquals(done.criteria[0].current.passed, false, "recorded as it stands: failing");
    assertEquals(done.criteria[0].current.exit_code, 1);

    const build = await runSkiff(
      [
        "run",
        ...sandboxFlags(),
        "--allow",
        "bash(*)",
        "--allow",
        "edit",
        "--json",
        "--done",
        "make fixed.txt",
      ],
      sandbox,
    );
    // Exit 3, not 0: the check passed, but the run tried what it was refused.
    assertEquals(build.code, 3, build.stdout + build.stderr);
    const buildTools = (mock.requests[2].tools as { function: { name: string } }[])
      .map((tool) => tool.function.name);
    assertEquals(buildTools.includes("done_propose"), false, "a build agent has no done_propose");
    assertEquals(await Deno.readTextFile(doneFile), written, "the criteria are unchanged");
    const events = parseJsonLines(build.stdout);
    const results = events.filter((event) => event.type === "tool.completed");
    assertEquals(results[0].ok, false, "the write tool was refused");
    assertStringIncludes(JSON.stringify(results[0].error), "write-protected");
    assertEquals(results[1].ok, false, "the command's write was refused");
    const checks = events.filter((event) => event.type === "verification.completed");
    assertEquals(checks.map((check) => check.passed), [false, true]);
    assertEquals(checks[1].command, CRITERION.command);
    const completed = events.find((event) => event.type === "session.completed")!;
    assertEquals((completed.verification as { passed: boolean }).passed, true);
    assertEquals((completed.denials as unknown[]).length, 2);
  });
});

Deno.test("--done without .skiff/done.json says how to make one, before anything is sent", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const run = await runSkiff(["run", "--done", "x"], sandbox);
    assertEquals(run.code, 2, run.stderr);
    assertStringIncludes(run.stderr, "skiff run --agent plan");
    assertEquals(mock.requests.length, 0);
  });
});
