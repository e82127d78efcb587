/**
 * The batch progress line speaks the summary's words: a task stopped by
 * Ctrl-C is "interrupted" on both, never "failed" on one and "not run" on
 * the other.
 */
import { assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { BatchProgress } from "../../../src/cli/batch/progress.ts";
import { buildReport, countsLine } from "../../../src/cli/batch/report.ts";

Deno.test("batch progress: Ctrl-C'd tasks are interrupted on the line and in the summary alike", () => {
  const written: string[] = [];
  const progress = new BatchProgress(20, true, (text) => written.push(text));
  for (let task = 0; task < 4; task++) progress.taskStarted();
  progress.taskEnded("f01", "succeeded", 0, "");
  for (const id of ["f02", "f03", "f04"]) {
    progress.taskEnded(id, "interrupted", 130, "interrupted while waiting for the model (turn 2)");
  }
  const line = progress.line().replace(/, ETA .*$/, "");
  assertEquals(line, "batch: 1 succeeded, 0 failed, 3 interrupted, 0 running of 20");

  const report = buildReport(["batch_x"], [], [
    { id: "f01", status: "succeeded", exitCode: 0, sessionId: "s1", ms: 1, detail: "" },
    ...["f02", "f03", "f04"].map((id) => ({
      id,
      status: "interrupted" as const,
      exitCode: 130,
      sessionId: "s",
      ms: 1,
      detail: "interrupted",
    })),
    ...Array.from({ length: 16 }, (_, index) => ({
      id: `g${index}`,
      status: "pending" as const,
      exitCode: null,
      sessionId: null,
      ms: null,
      detail: "",
    })),
  ], 1);
  assertEquals(countsLine(report), "20 task(s): 1 succeeded, 0 failed, 3 interrupted, 16 not run");
});

Deno.test("batch progress: in a log each end is a line, an interrupted task's without FAIL", () => {
  const written: string[] = [];
  const progress = new BatchProgress(2, false, (text) => written.push(text));
  progress.taskStarted();
  progress.taskStarted();
  progress.taskEnded("a", "failed", 3, "refused: bash rm x");
  progress.taskEnded("b", "interrupted", 130, "interrupted after its bash call ended (turn 1)");
  assertEquals(written, [
    "[1/2] FAIL (exit 3) a: refused: bash rm x\n",
    "[2/2] interrupted b: after its bash call ended (turn 1)\n",
  ]);
  assertStringIncludes(progress.line(), "0 succeeded, 1 failed, 1 interrupted, 0 running of 2");
});
