/**
 * The file tools and symbolic links: a link is a name, not the file it names.
 * Deleting or moving a link removes the link and leaves the file it pointed
 * to alone; writing or editing through a link changes the file it points to
 * and keeps the link. The declared writes name the folder that holds the link,
 * so the policy judges where the removal happens, not only where the link points.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { applyPatchTool, createApplyPatchTool } from "../../../src/tools/files/apply_patch.ts";
import { diskWriter, type FileWriter } from "../../../src/tools/files/_file_io.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { writeTool } from "../../../src/tools/files/write.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { makeWorkspace } from "../_context.ts";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

const isLink = (file: string) => Deno.lstat(file).then((info) => info.isSymlink, () => false);
const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

Deno.test("apply_patch *** Delete File on a symlink removes the link, not the file it points to", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "keep me\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  const result = await ws.run(applyPatchTool, { patch: patch("*** Delete File: link.txt") });
  assert(!(await exists(ws.at("link.txt"))), "the link is gone");
  assertEquals(await ws.readText("target.txt"), "keep me\n", "the file it pointed to is kept");
  assertStringIncludes(result.output, "D link.txt");
  assert(!result.output.includes("target.txt"), result.output);
});

Deno.test("apply_patch deletes a dangling symlink without asking for a read", async () => {
  await using ws = await makeWorkspace();
  await Deno.symlink("gone.txt", ws.at("dangling.txt"));
  const result = await ws.run(applyPatchTool, { patch: patch("*** Delete File: dangling.txt") });
  assert(!(await exists(ws.at("dangling.txt"))));
  assertStringIncludes(result.output, "D dangling.txt");
});

Deno.test("apply_patch deleting a symlink still needs the file it shows to have been read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "unseen\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  const error = await ws.fail(applyPatchTool, { patch: patch("*** Delete File: link.txt") });
  assertEquals(error.code, "file_not_read");
  assert(await isLink(ws.at("link.txt")));
});

Deno.test("apply_patch moving a symlink removes the link, keeps its target, writes the new file", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "a\nb\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  await ws.run(applyPatchTool, {
    patch: patch("*** Update File: link.txt", "*** Move to: moved.txt", "@@", " a", "-b", "+B"),
  });
  assert(!(await exists(ws.at("link.txt"))), "the link was moved away");
  assertEquals(await ws.readText("target.txt"), "a\nb\n", "the file it pointed to is kept");
  assertEquals(await ws.readText("moved.txt"), "a\nB\n");
});

Deno.test("apply_patch declares the folder holding a symlink it removes", async () => {
  await using ws = await makeWorkspace();
  await ws.write("real/target.txt", "x\n");
  await Deno.mkdir(ws.at("links"));
  await Deno.symlink("../real/target.txt", ws.at("links/link.txt"));
  const access = await applyPatchTool.declare(
    { patch: patch("*** Delete File: links/link.txt") },
    ws.ctx,
  );
  assert(access.writes?.includes(ws.at("links")), JSON.stringify(access.writes));
  assert(access.patterns.includes("links/link.txt"), JSON.stringify(access.patterns));
});

Deno.test("apply_patch updating through a symlink changes the file it points to and keeps the link", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "a\nb\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  await ws.run(applyPatchTool, { patch: patch("*** Update File: link.txt", "@@", "-b", "+B") });
  assert(await isLink(ws.at("link.txt")));
  assertEquals(await ws.readText("target.txt"), "a\nB\n");
});

Deno.test("write and edit through a symlink change the file it points to and keep the link", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "one\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  await ws.run(editTool, { file_path: "link.txt", old_string: "one", new_string: "two" });
  assert(await isLink(ws.at("link.txt")), "edit kept the link");
  assertEquals(await ws.readText("target.txt"), "two\n");
  await ws.run(writeTool, { file_path: "link.txt", content: "three\n" });
  assert(await isLink(ws.at("link.txt")), "write kept the link");
  assertEquals(await ws.readText("target.txt"), "three\n");
});

Deno.test("apply_patch removes links after every other file, so a failed removal leaves the link", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "t\n");
  await ws.write("two.txt", "2\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  await ws.run(readTool, { file_path: "two.txt" });
  const failing: FileWriter = {
    write: diskWriter.write,
    async remove(file) {
      if (file.endsWith("two.txt")) throw new Error("device busy");
      await diskWriter.remove(file);
    },
  };
  const error = await ws.fail(createApplyPatchTool(failing), {
    patch: patch("*** Delete File: link.txt", "*** Delete File: two.txt"),
  });
  assertStringIncludes(error.message, "restored");
  assert(await isLink(ws.at("link.txt")), "the link was not touched");
  assertEquals(await Deno.readLink(ws.at("link.txt")), "target.txt");
  assertEquals(await ws.readText("two.txt"), "2\n");
});

Deno.test("apply_patch names a removed link it could not put back after a later failure", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "t\n");
  await Deno.symlink("target.txt", ws.at("a-link.txt"));
  await Deno.symlink("target.txt", ws.at("b-link.txt"));
  await ws.run(readTool, { file_path: "a-link.txt" });
  const failing: FileWriter = {
    write: diskWriter.write,
    async remove(file) {
      if (file.endsWith("b-link.txt")) throw new Error("device busy");
      await diskWriter.remove(file);
    },
  };
  const error = await ws.fail(createApplyPatchTool(failing), {
    patch: patch("*** Delete File: a-link.txt", "*** Delete File: b-link.txt"),
  });
  assertStringIncludes(
    error.message,
    "Could not restore: a-link.txt (a symbolic link to target.txt)",
  );
  assertEquals(await ws.readText("target.txt"), "t\n");
});

Deno.test("apply_patch refuses deleting a link and adding a file through it in one patch", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "t\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  await ws.run(readTool, { file_path: "link.txt" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch("*** Delete File: link.txt", "*** Add File: ./link.txt", "+new"),
  });
  assertEquals(error.code, "bad_input");
  assertStringIncludes(error.message, "named twice");
  assertEquals(await ws.readText("target.txt"), "t\n");
  assert(await isLink(ws.at("link.txt")));
});
