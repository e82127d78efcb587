/**
 * Ctrl-C in `skiff batch` (SIGINT to the process, as a terminal sends it):
 * the first stops new starts and lets each running task end the command it
 * is running, then stops it and records where, for `--resume`; a second
 * stops the running tasks at once, their command too.
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
    "WARNING: bubblewrap is missing: batch_interrupt_test runs with --sandbox full-access",
  );
  return ["--sandbox", "full-access"];
}

const DIRS = ["a", "b"];
const FIRST_NOTICE = "skiff: stopping: no new task starts; each running task ends the tool call " +
  "it is running, then stops and is recorded for --resume (Ctrl-C again stops them at once).";
const SECOND_NOTICE = "skiff: stopping the running tasks now, a running command too; they are " +
  "recorded for --resume (Ctrl-C again exits at once).";

/**
 * The first request of a task runs `command`; later ones answer "done", but
 * only after a long while while `slow.on` (a task that was not stopped would
 * then succeed, and the test sees it).
 */
function responder(command: string, slow: { on: boolean }) {
  return (body: Record<string, unknown>): MockTurn => {
    const results = (body.messages as { role: string }[])
      .filter((message) => message.role === "tool").length;
    if (results === 0) return { toolCalls: [{ name: "bash", arguments: { command } }] };
    return slow.on ? { text: "done", delayMs: 60_000 } : { text: "done" };
  };
}

async function setUp(sandbox: Sandbox): Promise<void> {
  for (const dir of DIRS) await Deno.mkdir(path.join(sandbox.workspace, dir));
}

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);
const at = (sandbox: Sandbox, dir: string, name: string) => path.join(sandbox.workspace, dir, name);

/** Start the batch; its stderr is gathered as it comes, so a test can wait for a line. */
function start(sandbox: Sandbox, report: string) {
  const child = spawnSkiff(
    [
      "batch",
      "--dirs",
      ...DIRS,
      "--prompt",
      "run the command in {name}",
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
  const seen = { stderr: "" };
  const decoder = new TextDecoder();
  const stderr = child.stderr.pipeTo(
    new WritableStream({ write: (chunk) => void (seen.stderr += decoder.decode(chunk)) }),
  );
  const stdout = new Response(child.stdout).text();
  return { child, seen, done: Promise.all([child.status, stdout, stderr]) };
}

interface ReportTask {
  id: string;
  status: string;
  exitCode: number | null;
  detail: string;
}

Deno.test("batch: the first Ctrl-C lets each running command finish, then stops the task for --resume", async () => {
  const slow = { on: true };
  const command = "touch started && sleep 3 && echo finished > done.txt";
  await withMockSandbox([], async (sandbox, mock) => {
    await setUp(sandbox);
    const report = path.join(sandbox.root, "report.json");
    const run = start(sandbox, report);
    await until(
      async () =>
        (await exists(at(sandbox, "a", "started"))) && exists(at(sandbox, "b", "started")),
      "both tasks' commands to start",
    );
    run.child.kill("SIGINT");
    const [status] = await run.done;
    assertEquals(status.code, 130, run.seen.stderr);
    assertStringIncludes(run.seen.stderr, FIRST_NOTICE);
    // Each command ran to its end: Ctrl-C waited for it.
    for (const dir of DIRS) {
      assertEquals(await Deno.readTextFile(at(sandbox, dir, "done.txt")), "finished\n");
    }
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.counts, { total: 2, succeeded: 0, failed: 0, interrupted: 2, pending: 0 });
    // The progress lines and the summary say the same of the stopped tasks.
    assertEquals(run.seen.stderr.includes("FAIL"), false, run.seen.stderr);
    assertStringIncludes(run.seen.stderr, "interrupted a: after its bash call ended (turn 1)");
    assertStringIncludes(
      run.seen.stderr,
      "2 task(s): 0 succeeded, 0 failed, 2 interrupted, 0 not run",
    );
    for (const task of written.tasks as ReportTask[]) {
      assertEquals(task.status, "interrupted");
      assertEquals(task.exitCode, 130);
      assertEquals(task.detail, "interrupted after its bash call ended (turn 1)");
    }
    assertStringIncludes(run.seen.stderr, "Run the rest: skiff batch --resume batch_");

    // --resume runs both again, afresh, and they now finish.
    slow.on = false;
    const before = mock.requests.length;
    const resumed = await runSkiff(["batch", "--resume", written.batches[0]], sandbox);
    assertEquals(resumed.code, 0, resumed.stderr);
    assertEquals(mock.requests.length - before, 4, "two requests per task, both tasks again");
  }, { respond: responder(command, slow) });
});

Deno.test("batch: a second Ctrl-C stops the running tasks at once, their command too", async () => {
  const command = "touch started && sleep 60 && echo finished > done.txt";
  await withMockSandbox([], async (sandbox) => {
    await setUp(sandbox);
    const report = path.join(sandbox.root, "report.json");
    const began = Date.now();
    const run = start(sandbox, report);
    await until(
      async () =>
        (await exists(at(sandbox, "a", "started"))) && exists(at(sandbox, "b", "started")),
      "both tasks' commands to start",
    );
    run.child.kill("SIGINT");
    await until(() => run.seen.stderr.includes(FIRST_NOTICE), "the first notice");
    run.child.kill("SIGINT");
    const [status] = await run.done;
    assertEquals(status.code, 130, run.seen.stderr);
    assertStringIncludes(run.seen.stderr, SECOND_NOTICE);
    // The 60-second commands were stopped, not waited for.
    assertEquals(Date.now() - began < 55_000, true, `took ${Date.now() - began} ms`);
    for (const dir of DIRS) assertEquals(await exists(at(sandbox, dir, "done.txt")), false);
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.counts.interrupted, 2);
    for (const task of written.tasks as ReportTask[]) {
      assertEquals(task.detail, "interrupted during bash (turn 1)");
    }
  }, { respond: responder(command, { on: true }) });
});
