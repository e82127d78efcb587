/**
 * `skiff undo --batch` after `skiff batch --resume`: a task stopped by
 * Ctrl-C and run again has two sessions; `--resume` put back the first's
 * changes before running it again, and undo puts back the rest, so every
 * file is as it was before the batch. A file changed by hand since is
 * refused and named, and the rest still goes back.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { runSkiff, type Sandbox, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { until } from "../support/batch_tasks.ts";
import { hasBwrap } from "../escape/e2e_support.ts";

/** Commands run in the OS sandbox where there is one; what is tested does not depend on which. */
function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn(
    "WARNING: bubblewrap is missing: batch_undo_resume_test runs with --sandbox full-access",
  );
  return ["--sandbox", "full-access"];
}

const DIRS = ["a", "b"];
const BEFORE = "before the batch\n";
const COMMAND = "echo appended >> log.txt";

/**
 * The first request of a task appends a line to its log.txt; later ones
 * answer "done", but only after a long while while `slow.on` (so Ctrl-C
 * finds each task waiting for the model, its command ended).
 */
function responder(slow: { on: boolean }) {
  return (body: Record<string, unknown>): MockTurn => {
    const results = (body.messages as { role: string }[])
      .filter((message) => message.role === "tool").length;
    if (results === 0) return { toolCalls: [{ name: "bash", arguments: { command: COMMAND } }] };
    return slow.on ? { text: "done", delayMs: 60_000 } : { text: "done" };
  };
}

const log = (sandbox: Sandbox, dir: string) => path.join(sandbox.workspace, dir, "log.txt");

/**
 * A batch over folders a and b whose tasks each append once, stopped by one
 * Ctrl-C after both appends, then resumed to the end (each append put back,
 * then made again: once in all).
 * Returns the batch id.
 */
async function appendInterruptResume(sandbox: Sandbox, slow: { on: boolean }): Promise<string> {
  for (const dir of DIRS) {
    await Deno.mkdir(path.join(sandbox.workspace, dir));
    await Deno.writeTextFile(log(sandbox, dir), BEFORE);
  }
  const report = path.join(sandbox.root, "report.json");
  const child = spawnSkiff(
    [
      "batch",
      "--dirs",
      ...DIRS,
      "--prompt",
      "append to the log in {name}",
      "-j",
      "2",
      ...sandboxFlags(),
      "--allow",
      "bash(*)",
      "--report",
      report,
    ],
    sandbox,
  );
  const output = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
  const appendedOnce = async () => {
    for (const dir of DIRS) {
      if (await Deno.readTextFile(log(sandbox, dir)) !== `${BEFORE}appended\n`) return false;
    }
    return true;
  };
  await until(appendedOnce, "both tasks' commands to append");
  child.kill("SIGINT");
  const status = await child.status;
  const [, stderr] = await output;
  assertEquals(status.code, 130, stderr);
  const first = JSON.parse(await Deno.readTextFile(report));
  assertEquals(first.counts.interrupted, 2, stderr);

  slow.on = false;
  const batchId = String(first.batches[0]);
  const resumed = await runSkiff(["batch", "--resume", batchId], sandbox);
  assertEquals(resumed.code, 0, resumed.stderr);
  for (const dir of DIRS) {
    // Each task's first append was put back before it ran again: appended once, not twice.
    assertEquals(await Deno.readTextFile(log(sandbox, dir)), `${BEFORE}appended\n`);
  }
  return batchId;
}

Deno.test("undo --batch after Ctrl-C and --resume puts every task's files back as before the batch", async () => {
  const slow = { on: true };
  await withMockSandbox([], async (sandbox) => {
    const batchId = await appendInterruptResume(sandbox, slow);

    const undone = await runSkiff(["undo", "--batch", batchId], sandbox);
    assertEquals(undone.code, 0, undone.stdout + undone.stderr);
    for (const dir of DIRS) {
      assertEquals(await Deno.readTextFile(log(sandbox, dir)), BEFORE, undone.stdout);
    }
    assertStringIncludes(undone.stdout, `Undid batch ${batchId}: 4 session(s) of 2 task(s).`);

    // Nothing is left to undo: a second run changes nothing and says so.
    const again = await runSkiff(["undo", "--batch", batchId], sandbox);
    assertEquals(again.code, 0, again.stdout + again.stderr);
    for (const dir of DIRS) assertEquals(await Deno.readTextFile(log(sandbox, dir)), BEFORE);
  }, { respond: responder(slow) });
});

Deno.test("undo --batch after --resume refuses and names a file changed since, and puts back the rest", async () => {
  const slow = { on: true };
  await withMockSandbox([], async (sandbox) => {
    const batchId = await appendInterruptResume(sandbox, slow);
    const edited = `${BEFORE}appended\nby hand\n`;
    await Deno.writeTextFile(log(sandbox, "a"), edited);

    const undone = await runSkiff(["undo", "--batch", batchId], sandbox);
    assertEquals(undone.code, 1, undone.stdout + undone.stderr);
    // The hand edit is kept, and task a's later session says it left the file (the
    // earlier one's change was put back by --resume already).
    assertEquals(await Deno.readTextFile(log(sandbox, "a")), edited);
    const refusals = undone.stderr.split("\n").filter((line) => line.startsWith("refused"));
    assertEquals(refusals.length, 1, undone.stderr);
    for (const line of refusals) assertStringIncludes(line, log(sandbox, "a"));
    assertEquals(await Deno.readTextFile(log(sandbox, "b")), BEFORE);
    assertStringIncludes(
      undone.stdout,
      `Undid batch ${batchId}: 4 session(s) of 2 task(s); 1 session(s) not wholly put back`,
    );
  }, { respond: responder(slow) });
});
