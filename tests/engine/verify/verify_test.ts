/**
 * The --until checks' pieces without a model: how a check is judged (exit code, and
 * output text when asked), which check leads the summary, what the agent is
 * told after a failed cycle, what the user is told when the checks never
 * passed, how the cycles' usage adds up, and the definition-of-done file.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes, assertThrows } from "../../support/assert.ts";
import {
  addCycle,
  checksFailedMessage,
  type CommandRun,
  feedbackMessage,
  judge,
  runChecks,
  untilChecks,
} from "../../../src/engine/verify/verify.ts";
import {
  measureProposals,
  readDoneChecks,
  writeDoneFile,
} from "../../../src/engine/verify/done_criteria.ts";
import type { LoopOutcome } from "../../../src/engine/loop/loop.ts";
import type { VerificationSummary } from "../../../src/contracts/events.ts";
import { type CycleHooks, runCycles } from "../../../src/engine/verify/cycles.ts";

const ran = (exitCode: number | null, output = ""): CommandRun => ({ exitCode, output });

Deno.test("untilChecks: a command is one check, no checks without one, at least one cycle", () => {
  assertEquals(untilChecks(undefined), undefined);
  assertEquals(untilChecks([]), undefined);
  assertEquals(untilChecks("npm test"), {
    checks: [{ name: "npm test", command: "npm test" }],
    maxCycles: 3,
  });
  assertEquals(untilChecks("make", 0)?.maxCycles, 1);
});

Deno.test("judge: the exit code must match, and the output must hold the expected text", () => {
  const check = { name: "t", command: "t" };
  assertEquals(judge(check, ran(0, "ok")).passed, true);
  assertEquals(judge(check, ran(1, "boom")).passed, false);
  assertEquals(judge(check, ran(null, "timed out")).passed, false);
  assertEquals(judge({ ...check, exitCode: 2 }, ran(2)).passed, true);
  const expecting = { ...check, expects: "42 passed" };
  assertEquals(judge(expecting, ran(0, "41 passed")).passed, false);
  assertEquals(judge(expecting, ran(0, "== 42 passed ==")).passed, true);
  assertEquals(judge(expecting, ran(0)).expected, 'exit 0, output containing "42 passed"');
});

Deno.test("judge: the summary is the output's last lines, short; the spill file is kept", () => {
  const output = Array.from({ length: 50 }, (_, i) => `line ${i}`).join("\n");
  const verdict = judge({ name: "t", command: "t" }, {
    exitCode: 1,
    output,
    fullOutputPath: "/data/tool-output/x.txt",
  });
  assertEquals(verdict.summary, "line 45\nline 46\nline 47\nline 48\nline 49");
  assertEquals(verdict.output_path, "/data/tool-output/x.txt");
});

Deno.test("runChecks: every check runs; the first failing one leads the summary", async () => {
  const until = untilChecks([
    { name: "lint", command: "lint" },
    { name: "test", command: "test" },
    { name: "build", command: "build" },
  ], 3)!;
  const exits: Record<string, number> = { lint: 0, test: 1, build: 2 };
  const seen: string[] = [];
  const { summary, outputs } = await runChecks(until, 2, (command) => {
    seen.push(command);
    return Promise.resolve(ran(exits[command], `${command} said ${exits[command]}`));
  });
  assertEquals(seen, ["lint", "test", "build"]);
  assertEquals(summary.passed, false);
  assertEquals(summary.command, "test");
  assertEquals(summary.exit_code, 1);
  assertEquals(summary.cycle, 2);
  assertEquals(summary.checks.map((check) => check.passed), [true, false, false]);
  assertEquals(outputs[2], "build said 2");

  const message = feedbackMessage(summary, outputs);
  assertStringIncludes(message, "cycle 2 of 3; 1 attempt left");
  assertStringIncludes(message, "`test` was to show exit 0; it ended with exit 1:\n\ntest said 1");
  assertStringIncludes(message, "build said 2");
  assertEquals(message.includes("lint said"), false, "a passing check is not sent back");
});

Deno.test("checksFailedMessage: names the command, its exit, the cycles, the output file and how to go on", async () => {
  const until = untilChecks("npm test", 3)!;
  const { summary } = await runChecks(
    until,
    3,
    () => Promise.resolve({ exitCode: 1, output: "FAIL", fullOutputPath: "/d/out.txt" }),
  );
  const message = checksFailedMessage(summary, "ses_1", true);
  assertStringIncludes(
    message,
    "the agent said it was done, but `npm test` still fails (exit 1) after 3 cycles; its full output is in /d/out.txt.",
  );
  assertStringIncludes(message, "skiff run --session ses_1 --until 'npm test'");
  // The session is named: in a batch, a bare undo would take back another task's session.
  assertStringIncludes(message, "to drop the last attempt: skiff undo --cycle --session ses_1.");
  const quiet = checksFailedMessage(summary, "ses_1", false);
  assertEquals(
    quiet.includes("skiff run --session"),
    false,
    "a subagent is continued by its parent",
  );
});

Deno.test("addCycle: the run reports the last cycle's outcome with every cycle's turns and usage", () => {
  const usage = (input: number) => ({
    input_tokens: input,
    output_tokens: 1,
    total_tokens: input + 1,
  });
  const first: LoopOutcome = { kind: "completed", text: "one", turns: 2, usage: usage(10) };
  const second: LoopOutcome = {
    kind: "limit",
    reason: "r",
    text: "two",
    turns: 3,
    usage: usage(5),
  };
  const both = addCycle(first, second);
  assertEquals(both.kind, "limit");
  assertEquals(both.text, "two");
  assertEquals(both.turns, 5);
  assertEquals(both.usage.input_tokens, 15);
  assertEquals(first.usage.input_tokens, 10, "the earlier outcome is not changed");
});

Deno.test("done criteria: measured once as they stand, written, and read back as the --done checks", async () => {
  const workspace = await Deno.makeTempDir();
  try {
    const done = await measureProposals(
      [
        { name: "tests", command: "npm test", why: "covered" },
        { name: "version", command: "cat VERSION", expects: "2.0", exit_code: 0, why: "bumped" },
      ],
      "ses_plan",
      (command) => Promise.resolve(command === "npm test" ? ran(1, "1 failing") : ran(0, "1.9")),
      () => new Date("2026-01-02T03:04:05Z"),
    );
    assertEquals(done.proposed_by, "ses_plan");
    assertEquals(done.proposed_at, "2026-01-02T03:04:05.000Z");
    assertEquals(done.criteria.map((criterion) => criterion.current.passed), [false, false]);
    assertEquals(done.criteria[0].current.exit_code, 1);
    assertEquals(done.criteria[1].expects, "2.0");

    // A proposal the agent's rules would not run is recorded with why and what would run it.
    const unrun = await measureProposals(
      [{ name: "tests", command: "npm test", why: "covered" }],
      "ses_plan",
      () => Promise.resolve({ notRun: "bash(npm test): * → deny", allowWith: ["--yes"] }),
    );
    assertEquals(unrun.criteria[0].current, {
      exit_code: null,
      passed: false,
      summary: "not run: bash(npm test): * → deny",
      not_run: true,
      allow_with: ["--yes"],
    });

    const file = await writeDoneFile(workspace, done);
    assertEquals(file, path.join(workspace, ".skiff", "done.json"));
    assertEquals(readDoneChecks(workspace), [
      { name: "tests", command: "npm test", exitCode: 0, fromProject: true },
      { name: "version", command: "cat VERSION", exitCode: 0, expects: "2.0", fromProject: true },
    ]);

    await Deno.writeTextFile(file, '{"criteria": []}');
    assertThrows(() => readDoneChecks(workspace), Error, "holds no criterion");
    await Deno.writeTextFile(file, "{");
    assertThrows(() => readDoneChecks(workspace), Error, "not valid JSON");
    await Deno.remove(file);
    assertThrows(() => readDoneChecks(workspace), Error, "skiff run --agent plan");
  } finally {
    await Deno.remove(workspace, { recursive: true });
  }
});

/** A fake agent loop: each call returns the next outcome and logs its prompt. */
function fakeCycles(outcomes: LoopOutcome["kind"][], exits: (number | null)[]) {
  const log: string[] = [];
  const marks: [number, number][] = [];
  const summaries: VerificationSummary[] = [];
  let loops = 0;
  let checks = 0;
  const hooks: CycleHooks = {
    runLoop: (prompt, number, turnsBefore) => {
      log.push(`loop ${number} after ${turnsBefore} turns: ${prompt.split("\n")[0]}`);
      const kind = outcomes[loops++];
      const usage = { input_tokens: 1, output_tokens: 1, total_tokens: 2 };
      return Promise.resolve(
        kind === "limit"
          ? { kind, reason: "r", text: "t", turns: 2, usage }
          : { kind: kind as "completed", text: "t", turns: 2, usage },
      );
    },
    markCycle: (number, cycle) => marks.push([number, cycle]),
    runCommand: (command, callId) => {
      log.push(`check ${command} as ${callId}`);
      return Promise.resolve(ran(exits[checks++], "out"));
    },
    checked: (summary) => summaries.push(summary),
    beforeChecks: () => Promise.resolve(),
  };
  return { hooks, log, marks, summaries };
}

Deno.test("runCycles: fails twice, passes the third time; each cycle a prompt of its own", async () => {
  const fake = fakeCycles(["completed", "completed", "completed"], [1, 1, 0]);
  const { outcome, verification } = await runCycles(
    {
      until: untilChecks("t"),
      firstPrompt: 4,
      prompt: "do it",
      signal: new AbortController().signal,
    },
    fake.hooks,
  );
  assertEquals(fake.marks, [[4, 1], [5, 2], [6, 3]]);
  assertEquals(fake.log, [
    "loop 4 after 0 turns: do it",
    "check t as verify_4_1",
    "loop 5 after 2 turns: You said you were done, but the check judging this work failed (cycle 1 of 3; 2 attempts left).",
    "check t as verify_5_1",
    "loop 6 after 4 turns: You said you were done, but the check judging this work failed (cycle 2 of 3; 1 attempt left).",
    "check t as verify_6_1",
  ]);
  assertEquals(fake.summaries.map((summary) => summary.passed), [false, false, true]);
  assertEquals(verification?.cycle, 3);
  assertEquals(outcome.kind, "completed");
  assertEquals(outcome.turns, 6);
});

Deno.test("runCycles: stops at maxCycles, on a loop that did not complete, and without checks", async () => {
  const never = fakeCycles(["completed", "completed"], [1, 1]);
  const stopped = await runCycles(
    {
      until: untilChecks("t", 2),
      firstPrompt: 1,
      prompt: "p",
      signal: new AbortController().signal,
    },
    never.hooks,
  );
  assertEquals(stopped.verification?.passed, false);
  assertEquals(stopped.verification?.cycle, 2);
  assertEquals(never.log.filter((line) => line.startsWith("loop")).length, 2);

  const limited = fakeCycles(["limit"], []);
  const limit = await runCycles(
    { until: untilChecks("t"), firstPrompt: 1, prompt: "p", signal: new AbortController().signal },
    limited.hooks,
  );
  assertEquals(limit.outcome.kind, "limit");
  assertEquals(limit.verification, undefined, "no check after a run that did not finish");

  const plain = fakeCycles(["completed"], []);
  const ungated = await runCycles(
    { firstPrompt: 1, prompt: "p", signal: new AbortController().signal },
    plain.hooks,
  );
  assertEquals(ungated.outcome.kind, "completed");
  assertEquals(plain.marks, [], "a prompt without checks is not a cycle");
  assertEquals(plain.log, ["loop 1 after 0 turns: p"]);
});

Deno.test("runCycles: a Ctrl-C during the check ends the run interrupted, with the check recorded", async () => {
  const interrupt = new AbortController();
  const fake = fakeCycles(["completed"], [null]);
  const runCommand = fake.hooks.runCommand;
  fake.hooks.runCommand = (command, callId, signal) => {
    interrupt.abort();
    assertEquals(signal.aborted, true, "the check's signal follows the prompt's");
    return runCommand(command, callId, signal);
  };
  const { outcome, verification } = await runCycles(
    { until: untilChecks("t"), firstPrompt: 1, prompt: "p", signal: interrupt.signal },
    fake.hooks,
  );
  assertEquals(outcome.kind, "interrupted");
  assertEquals(verification?.exit_code, null);
});

Deno.test("runCycles: a Stop block goes back to the loop before the check, and is no cycle of it", async () => {
  const fake = fakeCycles(["completed", "completed", "completed", "completed"], [1, 0]);
  const runLoop = fake.hooks.runLoop;
  const counted: number[] = [];
  fake.hooks.runLoop = (prompt, number, turnsBefore, turnsCounted) => {
    counted.push(turnsCounted);
    return runLoop(prompt, number, turnsBefore, turnsCounted);
  };
  // The first Stop blocks, the second passes; after the failed check, the third passes too.
  const blocks = ["run the linter", undefined, undefined, undefined];
  const active: boolean[] = [];
  fake.hooks.stopHooks = (isActive) => {
    active.push(isActive);
    return Promise.resolve(blocks[active.length - 1]);
  };
  const notes: string[] = [];
  fake.hooks.stopNote = (message) => notes.push(message);
  const { outcome, verification } = await runCycles(
    {
      until: untilChecks("t"),
      firstPrompt: 1,
      prompt: "do it",
      signal: new AbortController().signal,
    },
    fake.hooks,
  );
  assertEquals(fake.log.map((line) => line.split(":")[0]), [
    "loop 1 after 0 turns",
    "loop 2 after 2 turns",
    "check t as verify_2_1",
    "loop 3 after 4 turns",
    "check t as verify_3_1",
  ]);
  assertEquals(fake.log[1], "loop 2 after 2 turns: Stop hook feedback:");
  assertEquals(active, [false, true, false]);
  // The continuation shares its attempt's --max-turns; the check's feedback starts a new one.
  assertEquals(counted, [0, 2, 0]);
  assertEquals(fake.marks, [[1, 1], [2, 2], [3, 3]]);
  assertEquals(fake.summaries.map((summary) => [summary.cycle, summary.passed]), [[1, false], [
    2,
    true,
  ]]);
  assertEquals(notes, [
    "a Stop hook sent the agent back to work (1 of at most 8 in a row): run the linter",
  ]);
  assertEquals(verification?.passed, true);
  assertEquals(outcome.turns, 6);
});
