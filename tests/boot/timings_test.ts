/**
 * SKIFF_TIMINGS=1 (src/boot/timings.ts): the terminal side's marks, then the
 * engine Worker's (`worker:…`), which the Worker notes itself (it may not
 * read the environment) and sends before it answers the session's close,
 * all on the terminal side's clock. Causality between the two threads
 * checks the clocks agree: the Worker hears `init` only after the terminal
 * side has read its config, and its session is open before the terminal
 * side hears so.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import { WORKER_MARK, WorkerMarks } from "../../src/boot/timings.ts";
import { parseTimings } from "../../scripts/bench.ts";

Deno.test("WorkerMarks: each name once, absolute times in order, taken once", () => {
  const marks = new WorkerMarks();
  const before = performance.timeOrigin + performance.now();
  marks.note("init");
  marks.note("init");
  marks.note("session-open");
  const taken = marks.take();
  assertEquals(taken.map((entry) => entry.name), ["init", "session-open"]);
  assert(taken[0].at >= before && taken[1].at >= taken[0].at, JSON.stringify(taken));
  assertEquals(marks.take(), []);
  // A kept Worker's next session notes its moments anew.
  marks.note("init");
  assertEquals(marks.take().map((entry) => entry.name), ["init"]);
});

/** `skiff tool read` of a one-line file in a new sandbox, with `env`; its stderr. */
async function readOne(env: Record<string, string> = {}): Promise<string> {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(path.join(sandbox.workspace, "one.txt"), "hello\n");
    const result = await runSkiff(["tool", "read", '{"file_path":"one.txt"}'], sandbox, { env });
    assertEquals(result.code, 0, result.stderr);
    assertEquals(parseJsonLines(result.stdout)[0].ok, true, result.stdout);
    return result.stderr;
  } finally {
    await sandbox.cleanup();
  }
}

Deno.test("skiff tool with SKIFF_TIMINGS=1 prints the Worker's marks after its own, on one clock", async () => {
  const stderr = await readOne({ SKIFF_TIMINGS: "1" });
  const marks = parseTimings(stderr);
  const names = Object.keys(marks);
  const worker = ["module", "init", "session-open", "first-call"].map((name) => WORKER_MARK + name);
  for (const name of [...worker, "config", "session-open", "first-tool", "exit"]) {
    assert(Number.isFinite(marks[name]), `${name} missing or not a number: ${names}`);
  }
  // The terminal side's marks first, in the order marked; the Worker's after them.
  assert(names.indexOf("exit") < names.indexOf(worker[0]), names.join(" "));
  const at = (name: string) => marks[name];
  for (let i = 1; i < worker.length; i++) {
    assert(at(worker[i - 1]) <= at(worker[i]), `${worker[i - 1]} after ${worker[i]}`);
  }
  // Across the threads, within rounding: init is sent after the config is read, and each
  // answer is noted by the Worker before the terminal side hears it.
  const slack = 0.5;
  assert(at("worker:init") + slack >= at("config"), `${at("worker:init")} < ${at("config")}`);
  assert(at("worker:session-open") <= at("session-open") + slack, stderr);
  assert(at("worker:first-call") <= at("first-tool") + slack, stderr);
});

Deno.test("without SKIFF_TIMINGS nothing is printed", async () => {
  const stderr = await readOne();
  assert(!stderr.includes("skiff timings"), stderr);
});
