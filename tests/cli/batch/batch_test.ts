/**
 * `skiff batch` end to end against the scripted mock: tasks from JSONL and
 * --each, owns conflicts refused before anything runs, a bad line named,
 * the report and exit code, and undo of a whole batch.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import * as path from "node:path";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import { writerResponder } from "../../support/batch_tasks.ts";

Deno.test("batch: two tasks owning the same file are refused before anything runs", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const file = path.join(sandbox.root, "tasks.jsonl");
    await Deno.writeTextFile(
      file,
      [
        { id: "a", prompt: "write a.txt", owns: ["src"] },
        { id: "b", prompt: "write b.txt", owns: ["src/b.txt"] },
      ].map((task) => JSON.stringify(task)).join("\n"),
    );
    const result = await runSkiff(["batch", file], sandbox);
    assertEquals(result.code, 2, result.stderr);
    assertStringIncludes(result.stderr, 'tasks "a" and "b" both own src/b.txt');
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("batch: a bad JSONL line is named with its number and nothing runs", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    const file = path.join(sandbox.root, "tasks.jsonl");
    await Deno.writeTextFile(file, `{"id":"a","prompt":"write a.txt"}\n{"id":"b"}\n`);
    const result = await runSkiff(["batch", file], sandbox);
    assertEquals(result.code, 2);
    assertStringIncludes(result.stderr, "tasks.jsonl:2");
    assertEquals(mock.requests.length, 0);
  });
});

Deno.test("batch: --each runs one task per file, reports them, and undo --batch puts all back", async () => {
  await withMockSandbox([], async (sandbox) => {
    for (const name of ["one", "two", "three"]) {
      await Deno.writeTextFile(path.join(sandbox.workspace, `${name}.txt`), `${name}\n`);
    }
    const report = path.join(sandbox.root, "report.json");
    const dry = await runSkiff(
      ["batch", "--each", "*.txt", "--prompt", "write {file}", "--dry-run"],
      sandbox,
    );
    assertEquals(dry.code, 0, dry.stderr);
    assertEquals(parseJsonLines(dry.stdout).map((task) => task.id), [
      "one.txt",
      "three.txt",
      "two.txt",
    ]);

    const result = await runSkiff(
      [
        "batch",
        "--each",
        "*.txt",
        "--prompt",
        "write {file}",
        "-j",
        "3",
        "--json",
        "--report",
        report,
      ],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr);
    const events = parseJsonLines(result.stdout);
    assertEquals(events.filter((event) => event.type === "batch.task.completed").length, 3);
    assert(events.some((event) => event.type === "tool.completed" && event.task === "two.txt"));
    for (const name of ["one", "two", "three"]) {
      assertEquals(
        await Deno.readTextFile(path.join(sandbox.workspace, `${name}.txt`)),
        `made by ${name}.txt\n`,
      );
    }
    const written = JSON.parse(await Deno.readTextFile(report));
    assertEquals(written.counts, { total: 3, succeeded: 3, failed: 0, interrupted: 0, pending: 0 });

    const undo = await runSkiff(["undo", "--batch", written.batches[0]], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    for (const name of ["one", "two", "three"]) {
      assertEquals(
        await Deno.readTextFile(path.join(sandbox.workspace, `${name}.txt`)),
        `${name}\n`,
      );
    }
  }, { respond: writerResponder });
});
