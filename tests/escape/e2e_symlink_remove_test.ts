/**
 * End to end through `skiff run --json`: apply_patch deleting a symbolic link
 * removes the link and reports it under its own name, and the file it points
 * to survives; a link to a file outside the workspace is not a way to delete
 * (or keep a handle on) that file with --yes. `skiff undo` then brings the
 * link back as a link, never as a copy of the file it pointed to.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  assertUnchanged,
  exists,
  guarded,
  lastToolResults,
  OUTSIDE_SECRET,
  read,
  withAttack,
} from "./e2e_support.ts";

const deletePatch = (file: string) =>
  ({
    name: "apply_patch",
    arguments: { patch: `*** Begin Patch\n*** Delete File: ${file}\n*** End Patch` },
  }) as const;

Deno.test("e2e: apply_patch deleting a workspace symlink removes the link and keeps its target", async () => {
  await withAttack([
    { toolCalls: [read("link.txt")] },
    { toolCalls: [deletePatch("link.txt")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const target = path.join(sandbox.workspace, "target.txt");
    const link = path.join(sandbox.workspace, "link.txt");
    await Deno.writeTextFile(target, "keep me\n");
    await Deno.symlink("target.txt", link);
    const result = await runSkiff(["run", "--json", "--yes", "remove the link"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const [patchResult] = lastToolResults(mock).slice(-1);
    assertStringIncludes(patchResult.content, "D link.txt");
    assert(!patchResult.content.includes("target.txt"), patchResult.content);
    assert(!(await exists(link)), "the link is gone");
    assertEquals(await Deno.readTextFile(target), "keep me\n", "its target is kept");

    // Undo brings back the link itself, not a copy of the file it pointed to.
    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stderr);
    const info = await Deno.lstat(link);
    assert(info.isSymlink, "undo put back a regular file instead of the link");
    assertEquals(await Deno.readLink(link), "target.txt");
    assertEquals(await Deno.readTextFile(target), "keep me\n");
  });
});

Deno.test("e2e: undo does not put a removed link back over a file made there since", async () => {
  await withAttack([
    { toolCalls: [read("link.txt")] },
    { toolCalls: [deletePatch("link.txt")] },
    { text: "done" },
  ], async (sandbox) => {
    const link = path.join(sandbox.workspace, "link.txt");
    await Deno.writeTextFile(path.join(sandbox.workspace, "target.txt"), "keep me\n");
    await Deno.symlink("target.txt", link);
    const result = await runSkiff(["run", "--json", "--yes", "remove the link"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    await Deno.writeTextFile(link, "made by the user since\n");
    const undo = await runSkiff(["undo"], sandbox);
    assertStringIncludes(undo.stdout + undo.stderr, "made there since");
    assertEquals(await Deno.readTextFile(link), "made by the user since\n");
    assert(!(await Deno.lstat(link)).isSymlink);
  });
});

Deno.test("e2e: a workspace symlink to an outside file is not deleted through with --yes, and the file survives", async () => {
  await withAttack([
    { toolCalls: [deletePatch("outside-link")] },
    { text: "done" },
  ], async (sandbox, mock) => {
    const link = path.join(sandbox.workspace, "outside-link");
    await Deno.symlink(path.join(sandbox.outside, "secret.txt"), link);
    const before = guarded(sandbox);
    const result = await runSkiff(["run", "--json", "--yes", "delete it"], sandbox);
    assertEquals(result.code, 3, result.stderr);
    for (const message of lastToolResults(mock)) assertStringIncludes(message.content, "denied");
    assertEquals(
      await Deno.readTextFile(path.join(sandbox.outside, "secret.txt")),
      `${OUTSIDE_SECRET}\n`,
    );
    assertUnchanged(before, guarded(sandbox));
  });
});
