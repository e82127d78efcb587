/**
 * `skiff sessions stats` counts the runs of the workspace it is run in, as
 * `skiff sessions list` lists that workspace's sessions, says which runs it
 * counted, and counts every workspace with `--all` (or another with `--dir`).
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";

Deno.test("sessions stats: this workspace by default like sessions list, every one with --all", async () => {
  await withMockSandbox([{ text: "here" }, { text: "there" }], async (sandbox) => {
    const other = path.join(sandbox.root, "other");
    await Deno.mkdir(other);
    assertEquals((await runSkiff(["run", "hi"], sandbox)).code, 0);
    assertEquals((await runSkiff(["run", "--dir", other, "hi"], sandbox)).code, 0);

    const listed = (await runSkiff(["sessions", "list", "--json"], sandbox)).stdout.trim().split(
      "\n",
    );
    assertEquals(listed.length, 1);

    const here = JSON.parse((await runSkiff(["sessions", "stats", "--json"], sandbox)).stdout);
    assertEquals([here.runs, here.failures, here.workspace], [1, 0, sandbox.workspace]);

    const all = JSON.parse(
      (await runSkiff(["sessions", "stats", "--all", "--json"], sandbox)).stdout,
    );
    assertEquals([all.runs, all.workspace], [2, null]);

    const elsewhere = JSON.parse(
      (await runSkiff(["sessions", "stats", "--dir", other, "--json"], sandbox)).stdout,
    );
    assertEquals(elsewhere.runs, 1);

    const text = await runSkiff(["sessions", "stats"], sandbox);
    assertEquals(text.code, 0, text.stderr);
    assertStringIncludes(text.stdout, "0 of 1 runs did not succeed.");
    assertStringIncludes(
      text.stdout,
      `Counted: runs in ${sandbox.workspace} (every workspace: --all).`,
    );
    const textAll = await runSkiff(["sessions", "stats", "--all"], sandbox);
    assertStringIncludes(textAll.stdout, "Counted: runs in every workspace.");
  });
});
