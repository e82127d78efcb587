/**
 * End-to-end: `skiff run --until '<check>'` holds the agent to a command.
 * The scripted model says "done" after each change; the check fails twice
 * and passes the third time (exit 0, three cycles, the verdict recorded),
 * a check that never passes exits 1 and says so, and `skiff undo --cycle`
 * puts back only the last attempt while plain undo takes back the run.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { hasBwrap } from "../escape/e2e_support.ts";
import { openStore } from "../../src/store/store.ts";

/** Commands run in the OS sandbox where there is one; the gate does not depend on which. */
function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn("WARNING: bubblewrap is missing: until_test runs with --sandbox full-access");
  return ["--sandbox", "full-access"];
}

/** The model's attempt `n`: set value.txt to n, then claim to be done. */
const attempt = (n: number): MockTurn[] => [
  { toolCalls: [{ name: "bash", arguments: { command: `printf ${n} > value.txt` } }] },
  { text: `Done: value.txt is ${n}.` },
];

const CHECK = `v=$(cat value.txt); [ "$v" = 3 ] || { echo "value is $v, want 3"; exit 1; }`;

function gateEvents(stdout: string) {
  const events = parseJsonLines(stdout);
  return {
    checks: events.filter((event) => event.type === "verification.completed"),
    completed: events.find((event) => event.type === "session.completed")!,
  };
}

const read = (sandbox: Sandbox) =>
  Deno.readTextFile(path.join(sandbox.workspace, "value.txt")).catch(() => null);

Deno.test("--until: a check that fails twice and then passes ends the run with exit 0 after 3 cycles", async () => {
  const script = [...attempt(1), ...attempt(2), ...attempt(3)];
  await withMockSandbox(script, async (sandbox, mock) => {
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--allow", "bash(*)", "--json", "--until", CHECK, "set it"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stdout + run.stderr);
    const { checks, completed } = gateEvents(run.stdout);
    assertEquals(checks.map((check) => check.passed), [false, false, true]);
    assertEquals(checks.map((check) => check.exit_code), [1, 1, 0]);
    const verification = completed.verification as Record<string, unknown>;
    assertEquals(verification.passed, true);
    assertEquals(verification.cycle, 3);
    assertEquals(verification.command, CHECK);
    assertEquals(completed.exit_code, 0);
    assertEquals(await read(sandbox), "3");

    // The failing output went back to the model as the next user message.
    assertEquals(mock.requests.length, 6);
    const messages = mock.requests[2].messages as { role: string; content: string }[];
    const feedback = messages[messages.length - 1];
    assertEquals(feedback.role, "user");
    assertStringIncludes(feedback.content, "value is 1, want 3");
    assertStringIncludes(feedback.content, "cycle 1 of 3");

    // Recorded in the session: each check is a stored event.
    const store = openStore(sandbox.dataDir);
    try {
      const session = store.latestSession(sandbox.workspace)!;
      const stored = store.listEvents(session.id).filter((event) =>
        event.type === "verification.completed"
      );
      assertEquals(stored.length, 3);
      assertEquals(store.snapshots.cycleOf(session.id, 3), 3);
    } finally {
      store.close();
    }

    // undo --cycle: only the last attempt goes (value.txt back to cycle 2's "2").
    const undoCycle = await runSkiff(["undo", "--cycle"], sandbox);
    assertEquals(undoCycle.code, 0, undoCycle.stdout + undoCycle.stderr);
    assertStringIncludes(undoCycle.stdout, "Undid cycle 3 (prompt 3)");
    assertStringIncludes(undoCycle.stdout, "restored");
    assertEquals(await read(sandbox), "2");

    // Plain undo takes back what is left of the run: cycles 2 and 1.
    const undoRun = await runSkiff(["undo"], sandbox);
    assertEquals(undoRun.code, 0, undoRun.stdout + undoRun.stderr);
    assertStringIncludes(undoRun.stdout, "Undid cycle 2 (prompt 2)");
    assertStringIncludes(undoRun.stdout, "Undid cycle 1 (prompt 1)");
    assertEquals(await read(sandbox), null, "value.txt, created by the run, is gone");
  });
});

Deno.test("--until: a check that never passes exits 1 and says the agent's claim did not hold", async () => {
  const script = [...attempt(1), ...attempt(2)];
  await withMockSandbox(script, async (sandbox, mock) => {
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--allow", "bash(*)", "--until", CHECK, "--max-cycles", "2", "x"],
      sandbox,
    );
    assertEquals(run.code, 1, run.stdout + run.stderr);
    assertStringIncludes(
      run.stderr,
      `the agent said it was done, but \`${CHECK}\` still fails (exit 1) after 2 cycles`,
    );
    assertStringIncludes(run.stderr, "skiff undo --cycle");
    assertStringIncludes(run.stderr, "check (cycle 2 of 2)");
    assertEquals(mock.requests.length, 4, "no third attempt past --max-cycles 2");

    // Stored: the session's last event says how it ended.
    const store = openStore(sandbox.dataDir);
    try {
      const session = store.latestSession(sandbox.workspace)!;
      const events = store.listEvents(session.id);
      const completed = events.findLast((event) => event.type === "session.completed");
      assert(completed && completed.type === "session.completed");
      assertEquals(completed.exit_code, 1);
      assertEquals(completed.verification?.passed, false);
      assertEquals(completed.verification?.exit_code, 1);
      assertStringIncludes(completed.verification?.summary ?? "", "value is 2, want 3");
      assertEquals(completed.attribution?.reason, "verification_failed");
      assertEquals(session.status, "failed");
    } finally {
      store.close();
    }
  });
});

Deno.test("--until: a long failing output goes back cut, as tool output is, and is kept whole in a file", async () => {
  const loud = "seq 1 40000; exit 1";
  await withMockSandbox([...attempt(1), ...attempt(2)], async (sandbox, mock) => {
    const run = await runSkiff(
      [
        "run",
        ...sandboxFlags(),
        "--allow",
        "bash(*)",
        "--json",
        "--until",
        loud,
        "--max-cycles",
        "2",
        "x",
      ],
      sandbox,
    );
    assertEquals(run.code, 1, run.stderr);
    const { completed } = gateEvents(run.stdout);
    const verification = completed.verification as { output_path?: string; summary: string };
    assert(verification.output_path, "the whole output is spilled to a file");
    const whole = await Deno.readTextFile(verification.output_path);
    assertStringIncludes(whole, "\n20000\n");
    assertStringIncludes(verification.summary, "40000");
    const messages = mock.requests[2].messages as { role: string; content: string }[];
    const feedback = messages[messages.length - 1].content;
    assert(feedback.length < 32_000, `the feedback is cut (${feedback.length} characters)`);
    // Cycle 1's output is named in its feedback; the run's verdict names the last cycle's.
    assertStringIncludes(feedback, "verify_1_1.txt");
    assertStringIncludes(verification.output_path, "verify_2_1.txt");
    const error = parseJsonLines(run.stdout).find((event) => event.type === "error")!;
    assertEquals(error.code, "verification");
    assertStringIncludes(
      String(error.message),
      `its full output is in ${verification.output_path}`,
    );
  });
});

Deno.test("--until: --max-time cuts a check that hangs, and the run ends as a limit (exit 5)", async () => {
  await withMockSandbox([{ text: "Done." }], async (sandbox) => {
    const started = Date.now();
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--json", "--max-time", "8", "--until", "sleep 120", "x"],
      sandbox,
    );
    assertEquals(run.code, 5, run.stderr);
    assert(Date.now() - started < 60_000, "the check was stopped, not waited for");
    const { checks, completed } = gateEvents(run.stdout);
    assertEquals(checks.length, 1);
    assertEquals(checks[0].exit_code, null, "the check did not finish");
    assertEquals((completed.verification as { passed: boolean }).passed, false);
    const error = parseJsonLines(run.stdout).find((event) => event.type === "error")!;
    assertEquals(error.code, "limit");
  });
});

Deno.test("--until and --max-cycles are refused before anything is sent when they do not fit", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const both = await runSkiff(["run", "--until", "true", "--done", "x"], sandbox);
    assertEquals(both.code, 2, both.stderr);
    assertStringIncludes(both.stderr, "either --until");
    const cycles = await runSkiff(["run", "--until", "true", "--max-cycles", "0", "x"], sandbox);
    assertEquals(cycles.code, 2, cycles.stderr);
    assertStringIncludes(cycles.stderr, "--max-cycles must be a positive whole number");
    const alone = await runSkiff(["run", "--max-cycles", "2", "x"], sandbox);
    assertEquals(alone.code, 2, alone.stderr);
    assertEquals(mock.requests.length, 0);
  });
});
