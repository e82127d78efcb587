/**
 * `skiff batch` killed with SIGKILL mid-run, then `--resume <batch>`: the
 * tasks that finished are not run again, the one that was running and those
 * never started are, and the batch ends with every task succeeded.
 */
import { assert, assertEquals } from "../support/assert.ts";
import * as path from "node:path";
import { parseJsonLines, runSkiff, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import {
  perTask,
  requestsReach,
  taskOf,
  writerTurn,
  writeTaskFile,
} from "../support/batch_tasks.ts";

const IDS = Array.from({ length: 6 }, (_, index) => `task-${index + 1}`);
/** The task whose first request the first run never gets an answer to. */
const HELD = "task-3";

/** Read, write, answer "done"; while `hold.on`, the held task's requests never get an answer. */
function responder(hold: { on: boolean }) {
  return (body: Record<string, unknown>): MockTurn => {
    const task = taskOf(body);
    if (hold.on && task === HELD) return { hang: true };
    return writerTurn(body, () => `by ${task}\n`);
  };
}

Deno.test("batch: kill -9 mid-batch, then --resume runs the rest and redoes no finished task", async () => {
  const hold = { on: true };
  await withMockSandbox([], async (sandbox, mock) => {
    const file = await writeTaskFile(sandbox.root, sandbox.workspace, IDS);

    // One at a time, in order: tasks 1 and 2 take 3 requests each; the 7th is task 3's first.
    const child = spawnSkiff(["batch", file, "-j", "1", "--json"], sandbox);
    const output = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
    await requestsReach(mock, 7);
    assertEquals(taskOf(mock.requests[6]), HELD);
    child.kill("SIGKILL");
    assertEquals((await child.status).signal, "SIGKILL");
    const [stdout] = await output;
    const firstRun = parseJsonLines(stdout);
    const batchId = String(firstRun.find((event) => event.type === "batch.task.started")?.batch);
    assert(batchId.startsWith("batch_"), stdout);
    assertEquals(
      firstRun.filter((event) => event.type === "batch.task.completed").map((event) => event.task),
      ["task-1", "task-2"],
    );
    assertEquals(perTask(mock.requests), { "task-1": 3, "task-2": 3, [HELD]: 1 });

    hold.on = false;
    const report = path.join(sandbox.root, "report.json");
    const resumed = await runSkiff(
      ["batch", "--resume", batchId, "--json", "--report", report],
      sandbox,
    );
    assertEquals(resumed.code, 0, resumed.stderr);
    const events = parseJsonLines(resumed.stdout);
    assertEquals(
      events.filter((event) => event.type === "batch.task.started").map((event) => event.task),
      ["task-3", "task-4", "task-5", "task-6"],
    );
    // Finished tasks were not asked again; the killed one ran again whole, the rest once.
    assertEquals(perTask(mock.requests), {
      "task-1": 3,
      "task-2": 3,
      "task-3": 4,
      "task-4": 3,
      "task-5": 3,
      "task-6": 3,
    });
    for (const id of IDS) {
      assertEquals(
        await Deno.readTextFile(path.join(sandbox.workspace, `${id}.txt`)),
        `by ${id}\n`,
      );
    }
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.batches, [batchId]);
    assertEquals(written.counts, { total: 6, succeeded: 6, failed: 0, interrupted: 0, pending: 0 });
  }, { respond: responder(hold) });
});
