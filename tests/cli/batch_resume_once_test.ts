/**
 * `skiff batch --resume` after Ctrl-C or `kill -9`: a task that was stopped
 * part-way has its partial changes put back before it runs again, so its
 * edit lands once, never twice (docs/batch.md, "Resume and Ctrl-C").
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { runSkiff, type Sandbox, spawnSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockServer, MockTurn } from "../support/mock_server.ts";
import { until } from "../support/batch_tasks.ts";

const FILES = Array.from({ length: 8 }, (_, index) => `f0${index + 1}`);
const original = (name: string) => `file ${name.slice(1)} first line\nsecond line\n`;
const marked = (name: string) => `file ${name.slice(1)} first line MARKED\nsecond line\n`;

/**
 * "mark src/fNN.txt": read it, edit its first line, answer "done" (after a
 * long while when `slow.on`, so a stop finds the task waiting on the model).
 */
const marker = (slow: { on: boolean }) => (body: Record<string, unknown>): MockTurn => {
  const messages = body.messages as { role: string; content: unknown }[];
  const file = /mark (\S+)/.exec(String(messages.find((m) => m.role === "user")?.content))?.[1];
  const results = messages.filter((message) => message.role === "tool").length;
  if (results === 0) return { toolCalls: [{ name: "read", arguments: { file_path: file } }] };
  if (results === 1) {
    return {
      toolCalls: [{
        name: "edit",
        arguments: { file_path: file, old_string: "first line", new_string: "first line MARKED" },
      }],
    };
  }
  return slow.on ? { text: "done", delayMs: 60_000 } : { text: "done" };
};

async function seed(sandbox: Sandbox): Promise<void> {
  await Deno.mkdir(path.join(sandbox.workspace, "src"));
  for (const name of FILES) {
    await Deno.writeTextFile(path.join(sandbox.workspace, "src", `${name}.txt`), original(name));
  }
}

const read = (sandbox: Sandbox, name: string) =>
  Deno.readTextFile(path.join(sandbox.workspace, "src", `${name}.txt`));

async function markedCount(sandbox: Sandbox): Promise<number> {
  let count = 0;
  for (const name of FILES) if ((await read(sandbox, name)).includes("MARKED")) count++;
  return count;
}

/** Requests that carry an edit's result: the edit is stored, and the task asks for its next turn. */
function editsStored(mock: MockServer): number {
  return mock.requests.filter((body) =>
    (body.messages as { role: string }[]).filter((message) => message.role === "tool").length >= 2
  ).length;
}

/**
 * Each task's check takes 3 s, so a stop can fall while checks run; once the
 * test has written `.resuming` (before it resumes), the same check passes at once.
 */
const BATCH = [
  "batch",
  "--each",
  "src/*.txt",
  "--prompt",
  "mark {file}",
  "--until",
  "test -f .resuming || sleep 3",
];

/** Starts the batch, waits for `ready`, sends `signals`, returns the batch id and its exit. */
async function stopBatch(
  sandbox: Sandbox,
  ready: () => Promise<boolean>,
  signals: Deno.Signal[],
): Promise<{ batchId: string; code: number | null; stderr: string }> {
  const child = spawnSkiff([...BATCH, "-j", "4", "--json"], sandbox);
  const output = Promise.all([child.stdout, child.stderr].map((s) => new Response(s).text()));
  await until(ready, "the batch to reach the point to stop it");
  for (const signal of signals) {
    try {
      child.kill(signal);
    } catch {
      break; // The first stop ended it already: the second Ctrl-C of a person comes too late too.
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const status = await child.status;
  const [stdout, stderr] = await output;
  const batchId = /"batch":"(batch_[^"]+)"/.exec(stdout)?.[1];
  assert(batchId, stdout + stderr);
  return { batchId, code: status.code, stderr };
}

/**
 * Resume; every file ends marked once. `racy`: the stop may have fallen
 * between an edit landing and its record (kill -9 at the first edit); undo
 * then refuses that file as changed since, and the task is not run again
 * (it fails, saying so) rather than edit it twice.
 */
async function resumeToTheEnd(sandbox: Sandbox, batchId: string, racy = false): Promise<string> {
  await Deno.writeTextFile(path.join(sandbox.workspace, ".resuming"), "");
  const report = path.join(sandbox.root, "resumed.json");
  const resumed = await runSkiff(["batch", "--resume", batchId, "--report", report], sandbox);
  for (const name of FILES) assertEquals(await read(sandbox, name), marked(name), resumed.stderr);
  const tasks = JSON.parse(await Deno.readTextFile(report)).tasks as {
    status: string;
    detail: string;
  }[];
  const failed = tasks.filter((task) => task.status !== "succeeded");
  if (racy && failed.length) {
    console.warn(`${failed.length} task(s) stopped between an edit and its record: not run again`);
    assertEquals(resumed.code, 1, resumed.stderr);
    for (const task of failed) {
      assertStringIncludes(task.detail, "not run again, so nothing is applied twice");
    }
  } else {
    assertEquals(resumed.code, 0, resumed.stderr);
    assertStringIncludes(resumed.stderr, "8 task(s): 8 succeeded, 0 failed, 0 not run");
  }
  return resumed.stderr;
}

/** Where the batch is stopped, and whether the mock holds its "done" answers then. */
interface StopPoint {
  label: string;
  slow: boolean;
  /** The batch is there: at least one task has made its edit. */
  ready(sandbox: Sandbox, mock: MockServer): Promise<boolean>;
  /** The stop may fall between an edit landing and its record. */
  racy?: boolean;
}

const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

const POINTS: StopPoint[] = [
  // Four tasks (-j 4) made their edit, said "done", and run their `sleep 3` check.
  {
    label: "while checks run",
    slow: false,
    ready: async (_, mock) => editsStored(mock) >= 4 && (await pause(500), true),
  },
  // Four tasks made their edit and wait for the model's next answer.
  {
    label: "while waiting on the model",
    slow: true,
    ready: (_, mock) => Promise.resolve(editsStored(mock) >= 4),
  },
  // The first edit landed on disk; the others may be anywhere before theirs.
  {
    label: "at the first edit",
    slow: false,
    ready: async (sandbox) => await markedCount(sandbox) >= 1,
    racy: true,
  },
];

const CASES: [StopPoint, string, Deno.Signal[]][] = [
  [POINTS[0], "one Ctrl-C", ["SIGINT"]],
  [POINTS[0], "two Ctrl-C", ["SIGINT", "SIGINT"]],
  [POINTS[0], "kill -9", ["SIGKILL"]],
  [POINTS[1], "one Ctrl-C", ["SIGINT"]],
  [POINTS[1], "kill -9", ["SIGKILL"]],
  [POINTS[2], "one Ctrl-C", ["SIGINT"]],
  [POINTS[2], "kill -9", ["SIGKILL"]],
];

for (const [point, label, signals] of CASES) {
  Deno.test(`batch --resume after ${label} ${point.label}: each edit lands once`, async () => {
    const slow = { on: point.slow };
    await withMockSandbox([], async (sandbox, mock) => {
      await seed(sandbox);
      const stopped = await stopBatch(sandbox, () => point.ready(sandbox, mock), signals);
      if (signals[0] === "SIGKILL") assertEquals(stopped.code, 137);
      else assertEquals(stopped.code, 130, stopped.stderr);
      const before = await markedCount(sandbox);
      assert(before >= 1, `no edit landed before the stop: ${stopped.stderr}`);
      slow.on = false;
      const stderr = await resumeToTheEnd(sandbox, stopped.batchId, point.racy);
      // Each stopped task that had made its edit had it put back first, and said so.
      assertStringIncludes(stderr, "putting back what its stopped run ses_");
      if (!point.racy) assertStringIncludes(stderr, "restored ");
    }, { respond: marker(slow) });
  });
}

Deno.test("batch --resume does not run again a stopped task whose file was changed by hand since", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    await seed(sandbox);
    const stopped = await stopBatch(sandbox, () => Promise.resolve(editsStored(mock) >= 4), [
      "SIGINT",
    ]);
    assertEquals(stopped.code, 130, stopped.stderr);
    await Deno.writeTextFile(path.join(sandbox.workspace, ".resuming"), "");
    const byHand = "edited by hand after the stop\n";
    await Deno.writeTextFile(path.join(sandbox.workspace, "src", "f01.txt"), byHand);

    const resumed = await runSkiff(["batch", "--resume", stopped.batchId], sandbox);
    assertEquals(resumed.code, 1, resumed.stderr);
    // The hand edit is kept and the task was not run again over it; the rest ran once.
    assertEquals(await read(sandbox, "f01"), byHand);
    for (const name of FILES.slice(1)) assertEquals(await read(sandbox, name), marked(name));
    assertStringIncludes(resumed.stderr, "not run again, so nothing is applied twice");
    assertStringIncludes(resumed.stderr, "8 task(s): 7 succeeded, 1 failed, 0 not run");
  }, { respond: marker({ on: false }) });
});
