/**
 * The batch's one rate gate end to end, against the scripted mock: a storm
 * of 429s (with and without Retry-After) holds every task back until the
 * longest wait is over, not just the task that got it, and the batch still
 * finishes; an endpoint that keeps failing (500s, or refused connections)
 * stops new task starts with exit 4 and the --resume line docs/batch.md
 * promises.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { perTask, taskOf, writerTurn, writeTaskFile } from "../support/batch_tasks.ts";

const IDS = ["task-1", "task-2", "task-3", "task-4"];
/** The Retry-After of the first 429, in seconds: the longest wait of the storm. */
const RETRY_AFTER = 3;

interface Arrival {
  task: string;
  at: number;
  answered: boolean;
}

Deno.test("batch: a 429 storm holds every task until the longest Retry-After, and none fails", async () => {
  const arrivals: Arrival[] = [];
  let stormEnds = Number.POSITIVE_INFINITY;
  let refusals = 0;
  const respond = (body: Record<string, unknown>, index: number): MockTurn => {
    const now = Date.now();
    const task = taskOf(body);
    if (index === 0) {
      // The first request of the batch: wait 3 s. The gate opens no sooner than stormEnds.
      stormEnds = now + RETRY_AFTER * 1000;
      arrivals.push({ task, at: now, answered: false });
      return { status: 429, retryAfter: RETRY_AFTER };
    }
    if (now < stormEnds) {
      // The storm: everything until then is refused too, half with a shorter Retry-After
      // (which must not shorten the wait), half with none (each task's own backoff, ~0.5 s).
      arrivals.push({ task, at: now, answered: false });
      return refusals++ % 2 ? { status: 429 } : { status: 429, retryAfter: 1 };
    }
    arrivals.push({ task, at: now, answered: true });
    return writerTurn(body);
  };
  await withMockSandbox([], async (sandbox, mock) => {
    const file = await writeTaskFile(sandbox.root, sandbox.workspace, IDS);
    const report = path.join(sandbox.root, "report.json");
    const result = await runSkiff(["batch", file, "-j", "4", "--report", report], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.counts, { total: 4, succeeded: 4, failed: 0, interrupted: 0, pending: 0 });
    for (const id of IDS) {
      assertEquals(
        await Deno.readTextFile(path.join(sandbox.workspace, `${id}.txt`)),
        `made by ${id}.txt\n`,
      );
    }
    // Past the storm every task's three turns were answered once: none failed, none ran twice.
    assertEquals(
      perTask(mock.requests.filter((_, index) => arrivals[index].answered)),
      Object.fromEntries(IDS.map((id) => [id, 3])),
    );
    // Held by the shared gate, not retried on their own backoff nor their shorter Retry-After:
    // during the 3 s wait a task reached the mock at most once (a request it had sent before
    // the first 429 came back). Without the shared gate a task refused with no Retry-After would
    // come back after ~0.5 s and ~1.5 s; one never refused would not wait at all.
    const during = arrivals.slice(1).filter((arrival) => !arrival.answered);
    for (const task of IDS) {
      const times = during.filter((arrival) => arrival.task === task).length;
      assert(
        times <= 1,
        `${task} asked ${times} times during the wait: ${JSON.stringify(arrivals)}`,
      );
    }
  }, { respond });
});

/** Four tasks, two at a time, against an endpoint that never answers well. */
async function failingEndpoint(baseUrl: string | undefined, respond?: () => MockTurn) {
  await withMockSandbox([], async (sandbox, mock) => {
    const file = await writeTaskFile(sandbox.root, sandbox.workspace, IDS);
    const report = path.join(sandbox.root, "report.json");
    const result = await runSkiff(
      ["batch", file, "-j", "2", "--json", "--report", report],
      sandbox,
      { env: baseUrl ? { OPENAI_BASE_URL: baseUrl } : {} },
    );
    assertEquals(result.code, 4, result.stderr);
    assertStringIncludes(
      result.stderr,
      "stopped (the endpoint failed 6 times in a row) after starting 2 of 4 task(s); " +
        "4 task(s): 0 succeeded, 2 failed, 2 not run. Run the rest: skiff batch --resume batch_",
    );
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.counts, { total: 4, succeeded: 0, failed: 2, interrupted: 0, pending: 2 });
    for (
      const task of written.tasks.filter((task: { status: string }) => task.status === "failed")
    ) {
      assertEquals(task.exitCode, 4);
    }
    // Only the two started tasks asked (each up to its own retries); the rest sent nothing.
    if (!baseUrl) assertEquals(Object.keys(perTask(mock.requests)).length, 2);
  }, respond ? { respond } : {});
}

Deno.test("batch: an endpoint answering 500 stops new task starts, exit 4 with --resume", async () => {
  await failingEndpoint(undefined, () => ({ status: 500 }));
});

Deno.test("batch: a refused connection stops new task starts, exit 4 with --resume", async () => {
  // A port that was free a moment ago: nothing listens there.
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  await failingEndpoint(`http://127.0.0.1:${port}/v1`);
});
