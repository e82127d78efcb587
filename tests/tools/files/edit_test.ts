/**
 * The edit tool end to end on real files: the read-before-edit rule, what
 * survives on disk (CRLF, BOM, final newline, mode), atomic batches,
 * serialised concurrent edits, the diff in metadata, and declare.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { makeContext, makeWorkspace } from "../_context.ts";
import type { ToolError } from "../../../src/tools/tool.ts";

const bytesOf = (text: string) => new TextEncoder().encode(text);

Deno.test("edit refuses a file that was never read, then works after read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "hello\nworld\n");
  const refused = await ws.fail(editTool, {
    file_path: "a.txt",
    old_string: "world",
    new_string: "there",
  });
  assertEquals(refused.code, "file_not_read");
  assertStringIncludes(refused.hint ?? "", "read");
  assertEquals(await ws.readText("a.txt"), "hello\nworld\n");

  await ws.run(readTool, { file_path: "a.txt" });
  const result = await ws.run(editTool, {
    file_path: "a.txt",
    old_string: "world",
    new_string: "there",
  });
  assertEquals(await ws.readText("a.txt"), "hello\nthere\n");
  assertStringIncludes(result.output, "Edited a.txt at line 2");
  assert(!result.output.includes("@@"), "the diff does not go back to the model");
  assertStringIncludes(String(result.metadata?.diff), "-world\n+there");
  assertEquals(result.metadata?.additions, 1);
  assertEquals(result.metadata?.deletions, 1);
});

Deno.test("edit refuses a file changed on disk since it was read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "one\ntwo\n");
  await ws.run(readTool, { file_path: "a.txt" });
  await ws.write("a.txt", "one\ntwo\nthree (added by the user)\n");
  const refused = await ws.fail(editTool, {
    file_path: "a.txt",
    old_string: "two",
    new_string: "2",
  });
  assertEquals(refused.code, "file_changed");
  assertEquals(await ws.readText("a.txt"), "one\ntwo\nthree (added by the user)\n");
});

Deno.test("a successful edit keeps the file editable: a second edit needs no new read", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "a\nb\n");
  await ws.run(readTool, { file_path: "a.txt" });
  await ws.run(editTool, { file_path: "a.txt", old_string: "a", new_string: "A" });
  await ws.run(editTool, { file_path: "a.txt", old_string: "b", new_string: "B" });
  assertEquals(await ws.readText("a.txt"), "A\nB\n");
});

Deno.test("CRLF stays CRLF whatever line endings the model sends", async () => {
  await using ws = await makeWorkspace();
  await ws.write("win.txt", "first\r\nsecond\r\nthird\r\n");
  await ws.run(readTool, { file_path: "win.txt" });
  await ws.run(editTool, {
    file_path: "win.txt",
    old_string: "second\nthird",
    new_string: "2nd\n2.5\n3rd",
  });
  assertEquals(await ws.readText("win.txt"), "first\r\n2nd\r\n2.5\r\n3rd\r\n");
  await ws.run(editTool, {
    file_path: "win.txt",
    old_string: "first\r\n2nd",
    new_string: "1st\r\n2nd",
  });
  assertEquals(await ws.readText("win.txt"), "1st\r\n2nd\r\n2.5\r\n3rd\r\n");
});

Deno.test("a BOM and a missing final newline survive an edit", async () => {
  await using ws = await makeWorkspace();
  await ws.write("bom.txt", "\uFEFFalpha\nomega");
  await ws.run(readTool, { file_path: "bom.txt" });
  // The model adds a trailing newline it did not see: the file still ends without one.
  await ws.run(editTool, { file_path: "bom.txt", old_string: "omega", new_string: "OMEGA\n" });
  const bytes = await Deno.readFile(ws.at("bom.txt"));
  assertEquals([...bytes.subarray(0, 3)], [0xef, 0xbb, 0xbf]);
  assertEquals(new TextDecoder("utf-8", { ignoreBOM: true }).decode(bytes), "\uFEFFalpha\nOMEGA");
});

Deno.test("a final newline is kept when the edit at the end drops it", async () => {
  await using ws = await makeWorkspace();
  await ws.write("f.txt", "a\nlast\n");
  await ws.run(readTool, { file_path: "f.txt" });
  await ws.run(editTool, { file_path: "f.txt", old_string: "last\n", new_string: "final" });
  assertEquals(await ws.readText("f.txt"), "a\nfinal\n");
});

Deno.test("the file mode survives an edit", async () => {
  await using ws = await makeWorkspace();
  await ws.write("run.sh", "#!/bin/sh\necho hi\n");
  await Deno.chmod(ws.at("run.sh"), 0o755);
  await ws.run(readTool, { file_path: "run.sh" });
  await ws.run(editTool, { file_path: "run.sh", old_string: "echo hi", new_string: "echo bye" });
  assertEquals((await Deno.stat(ws.at("run.sh"))).mode! & 0o777, 0o755);
  const leftovers = [...Deno.readDirSync(ws.root)].filter((e) => e.name.includes(".tmp"));
  assertEquals(leftovers, [], "no temp file is left behind");
});

Deno.test("edits: applied in order, each to the previous result", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.ts", "let a = 1;\nlet b = 2;\n");
  await ws.run(readTool, { file_path: "a.ts" });
  const result = await ws.run(editTool, {
    file_path: "a.ts",
    edits: [
      { old_string: "let a = 1;", new_string: "let a = 10;" },
      { old_string: "let a = 10;\nlet b = 2;", new_string: "let a = 10;\nlet b = a * 2;" },
    ],
  });
  assertEquals(await ws.readText("a.ts"), "let a = 10;\nlet b = a * 2;\n");
  assertStringIncludes(result.output, "2 edits");
});

Deno.test("edits: one failing edit leaves the file untouched and says which", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.ts", "x\ny\nz\n");
  await ws.run(readTool, { file_path: "a.ts" });
  const refused = await ws.fail(editTool, {
    file_path: "a.ts",
    edits: [
      { old_string: "x", new_string: "X" },
      { old_string: "y", new_string: "Y" },
      { old_string: "not there", new_string: "?" },
    ],
  });
  assertEquals(refused.code, "no_match");
  assertStringIncludes(refused.message, "Edit 3 of 3");
  assertEquals(await ws.readText("a.ts"), "x\ny\nz\n");
  assertEquals(ws.snapshots.length, 0, "nothing was snapshotted for a failed call");
});

Deno.test("concurrent edits of one file are serialised: both land", async () => {
  await using ws = await makeWorkspace();
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i}`);
  await ws.write("c.txt", lines.join("\n") + "\n");
  await ws.run(readTool, { file_path: "c.txt" });
  await Promise.all(
    [3, 7, 11, 15].map((n) =>
      ws.run(editTool, { file_path: "c.txt", old_string: `line ${n}\n`, new_string: `LINE ${n}\n` })
    ),
  );
  const text = await ws.readText("c.txt");
  for (const n of [3, 7, 11, 15]) assertStringIncludes(text, `LINE ${n}\n`);
  assertEquals(text.split("\n").length, 21);
});

Deno.test("snapshot before the first change records the original bytes", async () => {
  await using ws = await makeWorkspace();
  await ws.write("s.txt", "original\n");
  await ws.run(readTool, { file_path: "s.txt" });
  await ws.run(editTool, { file_path: "s.txt", old_string: "original", new_string: "changed" });
  await ws.run(editTool, { file_path: "s.txt", old_string: "changed", new_string: "again" });
  assertEquals(ws.snapshots.map((s) => s.before), ["original\n"]);
  assertEquals(ws.snapshots[0].path, ws.at("s.txt"));
});

Deno.test("empty old_string creates a missing file; a missing file is otherwise not_found", async () => {
  await using ws = await makeWorkspace();
  const missing = await ws.fail(editTool, {
    file_path: "new/x.txt",
    old_string: "a",
    new_string: "b",
  });
  assertEquals(missing.code, "not_found");
  const created = await ws.run(editTool, {
    file_path: "new/x.txt",
    old_string: "",
    new_string: "hi\n",
  });
  assertStringIncludes(created.output, "Created new/x.txt");
  assertEquals(await ws.readText("new/x.txt"), "hi\n");
  assertEquals(ws.snapshots.map((s) => s.before), [null]);
});

Deno.test("bad input: old_string without new_string, nothing at all", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "a\n");
  assertEquals(
    (await ws.fail(editTool, { file_path: "a.txt", old_string: "a" })).code,
    "bad_input",
  );
  assertEquals((await ws.fail(editTool, { file_path: "a.txt" })).code, "bad_input");
});

Deno.test("edit refuses a binary file", async () => {
  await using ws = await makeWorkspace();
  // NUL bytes in both even and odd places: not UTF-16 text, not any text.
  await ws.write("b.bin", new Uint8Array([0x41, 0, 0, 0x42, 0, 0x01, 0x02, 0x89, 0xff, 0]));
  ws.ctx.files.markRead(ws.at("b.bin"), await Deno.readFile(ws.at("b.bin")));
  assertEquals(
    (await ws.fail(editTool, { file_path: "b.bin", old_string: "A", new_string: "C" })).code,
    "binary_file",
  );
});

Deno.test("declare: edit key, workspace-relative pattern, real paths, a diff preview, no write", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/m.ts", "export const x = 1;\n");
  const input = editTool.schema.parse({
    file_path: "src/m.ts",
    old_string: "= 1",
    new_string: "= 2",
  });
  const access = await editTool.declare(input, ws.ctx);
  assertEquals(access.key, "edit");
  assertEquals(access.patterns, ["src/m.ts"]);
  assertEquals(access.writes, [ws.at("src/m.ts")]);
  assertStringIncludes(access.preview ?? "", "+export const x = 2;");
  assertEquals(await ws.readText("src/m.ts"), "export const x = 1;\n");
});

Deno.test("declare: a path outside the workspace is reported absolute", async () => {
  await using ws = await makeWorkspace();
  const outside = await Deno.realPath(await Deno.makeTempDir());
  try {
    const input = editTool.schema.parse({
      file_path: `${outside}/o.txt`,
      old_string: "a",
      new_string: "b",
    });
    const access = await editTool.declare(input, ws.ctx);
    assertEquals(access.patterns, [`${outside}/o.txt`]);
  } finally {
    await Deno.remove(outside, { recursive: true });
  }
});

Deno.test("a replace_all confirmation counts occurrences", async () => {
  await using ws = await makeWorkspace();
  await ws.write("r.txt", "foo bar foo baz foo\n");
  await ws.run(readTool, { file_path: "r.txt" });
  const result = await ws.run(editTool, {
    file_path: "r.txt",
    old_string: "foo",
    new_string: "qux",
    replace_all: true,
  });
  assertEquals(await ws.readText("r.txt"), "qux bar qux baz qux\n");
  assertStringIncludes(result.output, "3 occurrences");
  assertEquals(bytesOf(await ws.readText("r.txt")).length, 20);
});

// A workspace made before the permission-narrowed tests below, which cannot create one.
const narrowed = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-perm-" }));
await Deno.writeTextFile(`${narrowed}/locked.txt`, "keep\n");
globalThis.addEventListener("unload", () => Deno.removeSync(narrowed, { recursive: true }));

Deno.test({
  name: "without --allow-write, edit fails as not_capable and the file is untouched",
  permissions: { read: true, write: false },
  async fn() {
    const ctx = makeContext(narrowed);
    await readTool.execute({ file_path: "locked.txt" }, ctx);
    let code = "";
    try {
      await editTool.execute(
        { file_path: "locked.txt", old_string: "keep", new_string: "lose" },
        ctx,
      );
    } catch (error) {
      code = (error as ToolError).code;
    }
    assertEquals(code, "not_capable");
    assertEquals(await Deno.readTextFile(`${narrowed}/locked.txt`), "keep\n");
  },
});

Deno.test({
  name: "without --allow-read, read fails as not_capable",
  permissions: { read: false },
  async fn() {
    let code = "";
    try {
      await readTool.execute({ file_path: "locked.txt" }, makeContext(narrowed));
    } catch (error) {
      code = (error as ToolError).code;
    }
    assertEquals(code, "not_capable");
  },
});

Deno.test("an old_string whose first line lost its indentation keeps the file indented", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.py", "def f():\n    if x:\n        return g(\n            1,\n        )\n");
  await ws.run(readTool, { file_path: "a.py" });
  const result = await ws.run(editTool, {
    file_path: "a.py",
    // Not an exact substring: the second line is two spaces short as well.
    old_string: "return g(\n          1,",
    new_string: "value = g(\n          2,",
  });
  assertEquals(
    await ws.readText("a.py"),
    "def f():\n    if x:\n        value = g(\n            2,\n        )\n",
  );
  assertStringIncludes(result.output, "re-indented");
});

Deno.test("ambiguous_match names a line holding two matches once, with its count", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.ts", "f(x); f(y);\ng(x);\nf(z);\n");
  await ws.run(readTool, { file_path: "a.ts" });
  const error = await ws.fail(editTool, { file_path: "a.ts", old_string: "f(", new_string: "h(" });
  assertEquals(error.code, "ambiguous_match");
  assertStringIncludes(error.message, "matches 3 places in a.ts: lines 1 (2 matches), 3.");
});

Deno.test("creating or filling a one-line file says 1 line", async () => {
  await using ws = await makeWorkspace();
  const created = await ws.run(editTool, { file_path: "n.txt", old_string: "", new_string: "x\n" });
  assertEquals(created.output, "Created n.txt (1 line).");
});

Deno.test("a batch or replace_all says where its edits landed", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "one\ntwo\nthree\ntwo\n");
  await ws.run(readTool, { file_path: "a.txt" });
  const batch = await ws.run(editTool, {
    file_path: "a.txt",
    edits: [{ old_string: "three", new_string: "3" }, { old_string: "one", new_string: "1" }],
  });
  assertEquals(batch.output, "Edited a.txt: 2 edits, at lines 3, 1 (+2 -2 lines; now 4 lines).");
  const all = await ws.run(editTool, {
    file_path: "a.txt",
    old_string: "two",
    new_string: "2",
    replace_all: true,
  });
  assertEquals(
    all.output,
    "Edited a.txt: 2 occurrences, the first at line 2 (+2 -2 lines; now 4 lines).",
  );
});

Deno.test("an old_string copied with read's cut-line note is told what went wrong", async () => {
  await using ws = await makeWorkspace();
  await ws.write("min.js", "a".repeat(2_500) + "\n");
  const { output } = await ws.run(readTool, { file_path: "min.js" });
  const copied = output.split("\n")[0].split("\t")[1];
  const error = await ws.fail(editTool, {
    file_path: "min.js",
    old_string: copied,
    new_string: "b",
  });
  assertEquals(error.code, "no_match");
  assertStringIncludes(error.message, "read's note for a cut line");
  assertEquals(await ws.readText("min.js"), "a".repeat(2_500) + "\n");
});
