/**
 * The write tool: creating files and folders, the read-before-write rule,
 * what an overwrite keeps (mode, CRLF, BOM, final newline), the diff in
 * metadata rather than in the output, and snapshots for undo.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { writeTool } from "../../../src/tools/files/write.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { makeWorkspace } from "../_context.ts";

Deno.test("write creates a new file and its missing folders without a read", async () => {
  await using ws = await makeWorkspace();
  const result = await ws.run(writeTool, { file_path: "deep/er/new.ts", content: "a\nb\n" });
  assertEquals(await ws.readText("deep/er/new.ts"), "a\nb\n");
  assertEquals(result.output, "Created deep/er/new.ts (2 lines).");
  assertEquals(result.metadata?.additions, 2);
  assertEquals(ws.snapshots.map((s) => s.before), [null]);
});

Deno.test("write refuses to overwrite a file that was not read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("keep.txt", "precious\n");
  const error = await ws.fail(writeTool, { file_path: "keep.txt", content: "gone\n" });
  assertEquals(error.code, "file_not_read");
  assertEquals(await ws.readText("keep.txt"), "precious\n");
});

Deno.test("write refuses a file modified outside since it was read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("f.txt", "v1\n");
  await ws.run(readTool, { file_path: "f.txt" });
  await ws.write("f.txt", "v2 from the user\n");
  const error = await ws.fail(writeTool, { file_path: "f.txt", content: "v3\n" });
  assertEquals(error.code, "file_changed");
  assertEquals(await ws.readText("f.txt"), "v2 from the user\n");
});

Deno.test("write over a read file: diff in metadata, counts in the output", async () => {
  await using ws = await makeWorkspace();
  await ws.write("f.txt", "one\ntwo\nthree\n");
  await ws.run(readTool, { file_path: "f.txt" });
  const result = await ws.run(writeTool, { file_path: "f.txt", content: "one\n2\nthree\nfour\n" });
  assertEquals(result.output, "Replaced f.txt: 4 lines, was 3 (+2 -1).");
  assertStringIncludes(String(result.metadata?.diff), "-two\n+2\n");
  assertEquals(ws.snapshots.map((s) => s.before), ["one\ntwo\nthree\n"]);
  // Written by skiff: the model's view is current, a second write needs no read.
  await ws.run(writeTool, { file_path: "f.txt", content: "done\n" });
  assertEquals(await ws.readText("f.txt"), "done\n");
});

Deno.test("write keeps mode, CRLF, BOM and final newline of the file it replaces", async () => {
  await using ws = await makeWorkspace();
  await ws.write("s.cmd", "\uFEFF@echo off\r\necho hi\r\n");
  await Deno.chmod(ws.at("s.cmd"), 0o750);
  await ws.run(readTool, { file_path: "s.cmd" });
  await ws.run(writeTool, { file_path: "s.cmd", content: "@echo off\necho bye" });
  const raw = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
    await Deno.readFile(ws.at("s.cmd")),
  );
  assertEquals(raw, "\uFEFF@echo off\r\necho bye\r\n");
  assertEquals((await Deno.stat(ws.at("s.cmd"))).mode! & 0o777, 0o750);
});

Deno.test("write of identical content changes nothing and says so", async () => {
  await using ws = await makeWorkspace();
  await ws.write("same.txt", "x\n");
  await ws.run(readTool, { file_path: "same.txt" });
  const before = (await Deno.stat(ws.at("same.txt"))).mtime;
  const result = await ws.run(writeTool, { file_path: "same.txt", content: "x\n" });
  assertStringIncludes(result.output, "already has this content");
  assertEquals((await Deno.stat(ws.at("same.txt"))).mtime, before);
  assertEquals(ws.snapshots.length, 0);
});

Deno.test("write refuses a directory path", async () => {
  await using ws = await makeWorkspace();
  await Deno.mkdir(ws.at("dir"));
  assertEquals((await ws.fail(writeTool, { file_path: "dir", content: "x" })).code, "bad_input");
});

Deno.test("declare: edit key and a preview diff, nothing written", async () => {
  await using ws = await makeWorkspace();
  const access = await writeTool.declare({ file_path: "n/new.md", content: "# hi\n" }, ws.ctx);
  assertEquals(access.key, "edit");
  assertEquals(access.patterns, ["n/new.md"]);
  assertEquals(access.writes, [ws.at("n/new.md")]);
  assertStringIncludes(access.preview ?? "", "+# hi");
  assert(!(await Deno.stat(ws.at("n")).then(() => true, () => false)), "declare created nothing");
});

Deno.test("write under a path whose parent is a file fails with a clear error", async () => {
  await using ws = await makeWorkspace();
  await ws.write("plain.txt", "x\n");
  const error = await ws.fail(writeTool, { file_path: "plain.txt/child.txt", content: "y" });
  assertEquals(error.code, "failed");
  assertStringIncludes(error.message, "Could not write plain.txt/child.txt");
  assertEquals(await ws.readText("plain.txt"), "x\n");
});

Deno.test("replacing a file with one line says 1 line", async () => {
  await using ws = await makeWorkspace();
  await ws.write("g.txt", "a\nb\n");
  await ws.run(readTool, { file_path: "g.txt" });
  const result = await ws.run(writeTool, { file_path: "g.txt", content: "only\n" });
  assertEquals(result.output, "Replaced g.txt: 1 line, was 2 (+1 -2).");
});
