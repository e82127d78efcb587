/**
 * The file tools with an editor's buffers in their context (`skiff acp`):
 * read, edit, write and apply_patch see the buffer and hand new text to it,
 * the read-before-edit ledger follows the buffer, undo snapshots keep the
 * buffer's text from before, and disk is left alone; binary files stay on
 * disk; an editor that fails or answers nonsense is a tool error, never a
 * silent read of the disk.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { writeTool } from "../../../src/tools/files/write.ts";
import { applyPatchTool } from "../../../src/tools/files/apply_patch.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

/** An editor holding `buffers` (by absolute path) and keeping what it is given there. */
function fakeEditor(ws: TestWorkspace, buffers: Map<string, string>) {
  const asked: string[] = [];
  ws.ctx.editor = {
    read: (file) => {
      asked.push(`read ${file}`);
      const text = buffers.get(file);
      return text === undefined ? Deno.readTextFile(file) : Promise.resolve(text);
    },
    write: (file, text) => {
      asked.push(`write ${file}`);
      buffers.set(file, text);
      return Promise.resolve();
    },
  };
  return asked;
}

Deno.test("with an editor's buffers, read, edit and write see the buffer and write to it; disk stays", async () => {
  await using ws = await makeWorkspace();
  const file = await ws.write("a.txt", "disk one\ndisk two\n");
  const buffers = new Map([[file, "buffer one\nbuffer two\n"]]);
  const asked = fakeEditor(ws, buffers);
  const read = await ws.run(readTool, { file_path: "a.txt" });
  assertStringIncludes(read.output, "buffer one");
  await ws.run(editTool, { file_path: "a.txt", old_string: "buffer two", new_string: "two" });
  assertEquals(buffers.get(file), "buffer one\ntwo\n");
  // The ledger follows the buffer: a second edit needs no new read.
  await ws.run(editTool, { file_path: "a.txt", old_string: "buffer one", new_string: "one" });
  assertEquals(buffers.get(file), "one\ntwo\n");
  await ws.run(writeTool, { file_path: "a.txt", content: "whole\n" });
  assertEquals(buffers.get(file), "whole\n");
  assertEquals(await ws.readText("a.txt"), "disk one\ndisk two\n");
  // Undo keeps the buffer's text from before the first change.
  assertEquals(ws.snapshots.map((snapshot) => snapshot.before), ["buffer one\nbuffer two\n"]);
  assert(asked.every((entry) => entry.endsWith(file)), asked.join(", "));
});

Deno.test("with an editor's buffers, apply_patch matches the buffer and hands the result to the editor", async () => {
  await using ws = await makeWorkspace();
  const file = await ws.write("b.txt", "disk\n");
  const buffers = new Map([[file, "alpha\nbeta\n"]]);
  fakeEditor(ws, buffers);
  await ws.run(readTool, { file_path: "b.txt" });
  await ws.run(applyPatchTool, {
    patch: "*** Begin Patch\n*** Update File: b.txt\n@@\n alpha\n-beta\n+gamma\n*** End Patch",
  });
  assertEquals(buffers.get(file), "alpha\ngamma\n");
  assertEquals(await ws.readText("b.txt"), "disk\n");
});

Deno.test("with an editor's buffers, a binary file is read on disk and the editor is not asked", async () => {
  await using ws = await makeWorkspace();
  await ws.write("c.bin", new Uint8Array([0, 1, 2, 0, 255, 0, 7]));
  const asked = fakeEditor(ws, new Map());
  const refused = await ws.fail(readTool, { file_path: "c.bin" });
  assertEquals(refused.code, "binary_file");
  assertEquals(asked, []);
});

Deno.test("an editor that fails or answers with no text is a tool error, never a read of the disk", async () => {
  await using ws = await makeWorkspace();
  await ws.write("d.txt", "on disk\n");
  ws.ctx.editor = { read: () => Promise.reject(new Error("no such buffer")) };
  const failed = await ws.fail(readTool, { file_path: "d.txt" });
  assertEquals(failed.code, "failed");
  assertStringIncludes(failed.message, "no such buffer");
  // A hostile editor's answer that is not text.
  ws.ctx.editor = { read: () => Promise.resolve(42 as unknown as string) };
  const nonsense = await ws.fail(readTool, { file_path: "d.txt" });
  assertStringIncludes(nonsense.message, "not usable text");
  // Control: without the editor the same read shows the disk.
  ws.ctx.editor = undefined;
  assertStringIncludes((await ws.run(readTool, { file_path: "d.txt" })).output, "on disk");
});
