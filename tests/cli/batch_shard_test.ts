/**
 * `skiff batch --shard K/N` against the scripted mock: three shards of one
 * task file together run every task exactly once, each writes its report,
 * and `skiff batch merge` joins the three (and refuses a task found twice).
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import * as path from "node:path";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { perTask, writerResponder, writeTaskFile } from "../support/batch_tasks.ts";

const IDS = Array.from({ length: 9 }, (_, index) => `task-${index + 1}`);

Deno.test("batch: 3 shards cover every task once and batch merge joins their reports", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const file = await writeTaskFile(sandbox.root, sandbox.workspace, IDS);

    const reports: string[] = [];
    const ran: string[][] = [];
    for (const k of [1, 2, 3]) {
      const report = path.join(sandbox.root, `s${k}.json`);
      reports.push(report);
      const result = await runSkiff(
        ["batch", file, "--shard", `${k}/3`, "-j", "3", "--report", report],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      const written = JSON.parse(await Deno.readTextFile(report));
      assertEquals(written.shards, [`${k}/3`]);
      assertEquals(written.counts.failed + written.counts.pending, 0);
      ran.push(written.tasks.map((task: { id: string }) => task.id));
    }
    // Every shard got some of the nine, and together they are the nine, none twice.
    for (const shard of ran) assert(shard.length > 0, `an empty shard: ${JSON.stringify(ran)}`);
    assertEquals(ran.flat().sort(), [...IDS].sort());
    for (const id of IDS) {
      assertEquals(
        await Deno.readTextFile(path.join(sandbox.workspace, `${id}.txt`)),
        `made by ${id}.txt\n`,
      );
    }
    // Each task asked the model exactly three times (read, write, answer): none ran twice.
    assertEquals(perTask(mock.requests), Object.fromEntries(IDS.map((id) => [id, 3])));

    // The same split every time: shard 2 again picks the same tasks (dry run, nothing sent).
    const again = await runSkiff(["batch", file, "--shard", "2/3", "--dry-run"], sandbox);
    assertEquals(again.code, 0, again.stderr);
    assertEquals(
      again.stdout.trim().split("\n").map((line) => JSON.parse(line).id),
      ran[1],
    );

    const mergedFile = path.join(sandbox.root, "merged.json");
    const merged = await runSkiff(["batch", "merge", ...reports, "--report", mergedFile], sandbox);
    assertEquals(merged.code, 0, merged.stderr);
    assertStringIncludes(merged.stdout, "9 task(s): 9 succeeded, 0 failed, 0 not run");
    assertStringIncludes(merged.stdout, "shards 1/3, 2/3, 3/3");
    const joined = JSON.parse(await Deno.readTextFile(mergedFile));
    assertEquals(joined.batches.length, 3);
    assertEquals(joined.tasks.map((task: { id: string }) => task.id).sort(), [...IDS].sort());

    // A report given again (here as a copy) holds the same tasks: refused, nothing merged.
    const copy = path.join(sandbox.root, "s1-again.json");
    await Deno.copyFile(reports[0], copy);
    const twice = await runSkiff(["batch", "merge", ...reports, copy], sandbox);
    assertEquals(twice.code, 2, twice.stderr);
    assertStringIncludes(twice.stderr, `task "${ran[0][0]}" is in both ${reports[0]} and ${copy}`);
  }, { respond: writerResponder });
});
