/**
 * apply_patch scenarios on real files: add, delete, update with several
 * chunks, move, end of file, padded markers, the matching ladder, every
 * rejection, and the all-or-none guarantee (a failure in the third file
 * leaves the first two untouched, whether found while planning or writing).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { applyPatchTool, createApplyPatchTool } from "../../../src/tools/files/apply_patch.ts";
import { parsePatch } from "../../../src/tools/files/_apply_patch_parser.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { diskWriter, type FileWriter } from "../../../src/tools/files/_file_io.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

async function seed(ws: TestWorkspace, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await ws.write(name, content);
    await ws.run(readTool, { file_path: name });
  }
}

const exists = (file: string) => Deno.stat(file).then(() => true, () => false);

Deno.test("add: creates the file and its folders", async () => {
  await using ws = await makeWorkspace();
  const result = await ws.run(applyPatchTool, {
    patch: patch("*** Add File: src/new/hello.ts", "+export const hello = 1;", "+", "+// end"),
  });
  assertEquals(await ws.readText("src/new/hello.ts"), "export const hello = 1;\n\n// end\n");
  assertStringIncludes(result.output, "A src/new/hello.ts (+3 -0)");
  assertEquals(ws.snapshots.map((s) => s.before), [null]);
});

Deno.test("delete: removes a file that was read", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "old.txt": "bye\n" });
  const result = await ws.run(applyPatchTool, { patch: patch("*** Delete File: old.txt") });
  assert(!(await exists(ws.at("old.txt"))));
  assertStringIncludes(result.output, "D old.txt");
  assertEquals(ws.snapshots.map((s) => s.before), ["bye\n"]);
});

Deno.test("update: several chunks, kept lines untouched, diff in metadata", async () => {
  await using ws = await makeWorkspace();
  const lines = Array.from({ length: 30 }, (_, i) => `line ${i + 1}`);
  await seed(ws, { "m.txt": lines.join("\n") + "\n" });
  const result = await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: m.txt",
      "@@",
      " line 2",
      "-line 3",
      "+LINE THREE",
      " line 4",
      "@@ line 19",
      " line 20",
      "-line 21",
      "+line 21a",
      "+line 21b",
    ),
  });
  const expected = [...lines];
  expected.splice(20, 1, "line 21a", "line 21b");
  expected[2] = "LINE THREE";
  assertEquals(await ws.readText("m.txt"), expected.join("\n") + "\n");
  assertStringIncludes(result.output, "M m.txt (+3 -2)");
  assertStringIncludes(String(result.metadata?.diff), "+LINE THREE");
});

Deno.test("move: update and rename in one step; the source is gone", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "a/old.ts": "export const x = 1;\nexport const y = 2;\n" });
  await Deno.chmod(ws.at("a/old.ts"), 0o640);
  ws.ctx.files.markRead(ws.at("a/old.ts"), await Deno.readFile(ws.at("a/old.ts")));
  const result = await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: a/old.ts",
      "*** Move to: b/new.ts",
      "@@",
      "-export const y = 2;",
      "+export const y = 3;",
    ),
  });
  assert(!(await exists(ws.at("a/old.ts"))));
  assertEquals(await ws.readText("b/new.ts"), "export const x = 1;\nexport const y = 3;\n");
  assertStringIncludes(result.output, "R a/old.ts → b/new.ts");
});

Deno.test("end of file: the chunk matches the file's last lines, not an earlier copy", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "e.txt": "}\nreturn\n}\nreturn\n}\n" });
  await ws.run(applyPatchTool, {
    patch: patch("*** Update File: e.txt", "@@", " return", "-}", "+} // end", "*** End of File"),
  });
  assertEquals(await ws.readText("e.txt"), "}\nreturn\n}\nreturn\n} // end\n");
});

Deno.test("padded markers and CRLF patch text are accepted; the file keeps CRLF and BOM", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "w.txt": "\uFEFFone\r\ntwo\r\nthree\r\n" });
  const text = [
    "  *** Begin Patch  ",
    "   *** Update File: w.txt   ",
    "  @@  ",
    " one",
    "-two",
    "+2",
    "\t*** End Patch\t",
  ].join("\r\n");
  await ws.run(applyPatchTool, { patch: text });
  const raw = new TextDecoder("utf-8", { ignoreBOM: true }).decode(
    await Deno.readFile(ws.at("w.txt")),
  );
  assertEquals(raw, "\uFEFFone\r\n2\r\nthree\r\n");
});

Deno.test("context ladder: trailing whitespace, trimmed, and typographic punctuation", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, {
    "t.md": "Title   \n    indented line\nIt’s a “quote” — here\u00A0now\nlast\n",
  });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: t.md",
      "@@",
      " Title",
      " indented line",
      '-It\'s a "quote" - here now',
      "+It is plain now",
      " last",
    ),
  });
  // Kept lines are written back exactly as they were, trailing spaces and all.
  assertEquals(await ws.readText("t.md"), "Title   \n    indented line\nIt is plain now\nlast\n");
});

Deno.test("rejections: unread, changed, missing, existing, no match, malformed", async () => {
  await using ws = await makeWorkspace();
  await ws.write("unread.txt", "a\n");
  await ws.write("exists.txt", "x\n");
  await seed(ws, { "read.txt": "a\nb\n" });
  const update = (file: string, ...body: string[]) => patch(`*** Update File: ${file}`, ...body);

  const unread = await ws.fail(applyPatchTool, { patch: update("unread.txt", "@@", "-a", "+b") });
  assertEquals(unread.code, "file_not_read");

  await ws.write("read.txt", "a\nb\nc\n");
  const changed = await ws.fail(applyPatchTool, { patch: update("read.txt", "@@", "-a", "+A") });
  assertEquals(changed.code, "file_changed");
  await ws.run(readTool, { file_path: "read.txt" });

  const missing = await ws.fail(applyPatchTool, { patch: patch("*** Delete File: nope.txt") });
  assertEquals(missing.code, "not_found");

  const present = await ws.fail(applyPatchTool, { patch: patch("*** Add File: exists.txt", "+y") });
  assertEquals(present.code, "file_not_read");
  assertStringIncludes(present.message, "already exists and has not been read");

  const noMatch = await ws.fail(applyPatchTool, {
    patch: update("read.txt", "@@", " zzz", "-b", "+B"),
  });
  assertEquals(noMatch.code, "no_match");
  assertStringIncludes(noMatch.message, "read.txt: chunk 1 (patch line 3");

  const badAnchor = await ws.fail(applyPatchTool, {
    patch: update("read.txt", "@@ nowhere", "-b", "+B"),
  });
  assertEquals(badAnchor.code, "no_match");
  assertStringIncludes(badAnchor.message, "@@ nowhere");

  const malformed = [
    ["*** Update File: read.txt\n@@\n-a\n+b", "must start with *** Begin Patch"],
    ["*** Begin Patch\n*** Update File: read.txt\n@@\n-a\n+A", "must end with *** End Patch"],
    [patch("*** Add File: n.txt", "no plus"), 'starts with "+"'],
    [patch("*** Update File: read.txt", "@@", "?a"), 'starts with " ", "-" or "+"'],
    [patch("*** Update File: read.txt", "@@", " a"), "changes nothing"],
    [patch("*** Update File: read.txt"), "has no changes"],
    [patch("*** Delete File: read.txt", "*** Delete File: read.txt"), "appears twice"],
    [patch("hello"), "expected *** Add File"],
    [patch(), "changes no file"],
  ];
  for (const [text, message] of malformed) {
    const error = await ws.fail(applyPatchTool, { patch: text });
    assertEquals(error.code, "bad_input", text);
    assertStringIncludes(error.message, message);
  }
  assertEquals(await ws.readText("read.txt"), "a\nb\nc\n");
  assertEquals(await ws.readText("exists.txt"), "x\n");
  assertEquals(ws.snapshots.length, 0, "nothing was written by any rejected patch");
});

Deno.test("all or none: a chunk failing in the third file leaves the first two untouched", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "one.txt": "1\n", "two.txt": "2\n", "three.txt": "3\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch(
      "*** Update File: one.txt",
      "@@",
      "-1",
      "+one",
      "*** Add File: added.txt",
      "+new",
      "*** Update File: three.txt",
      "@@",
      "-not three",
      "+x",
    ),
  });
  assertEquals(error.code, "no_match");
  assertStringIncludes(error.message, "three.txt");
  assertEquals(await ws.readText("one.txt"), "1\n");
  assert(!(await exists(ws.at("added.txt"))));
});

Deno.test("all or none: a write failing on the third file rolls back the first two", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "one.txt": "1\n", "two.txt": "2\n", "three.txt": "3\n" });
  let writes = 0;
  const flaky: FileWriter = {
    async write(file, bytes) {
      // The 3rd write fails; rollback writes (4th and on) go through.
      if (++writes === 3) throw new Error("disk full");
      await diskWriter.write(file, bytes);
    },
    remove: diskWriter.remove,
  };
  const tool = createApplyPatchTool(flaky);
  const error = await ws.fail(tool, {
    patch: patch(
      "*** Add File: added.txt",
      "+new",
      "*** Update File: one.txt",
      "@@",
      "-1",
      "+one",
      "*** Update File: three.txt",
      "@@",
      "-3",
      "+three",
      "*** Delete File: two.txt",
    ),
  });
  assertEquals(error.code, "failed");
  assertStringIncludes(error.message, "Writing three.txt failed (disk full)");
  assertStringIncludes(error.message, "restored");
  assertEquals(await ws.readText("one.txt"), "1\n");
  assertEquals(await ws.readText("two.txt"), "2\n");
  assertEquals(await ws.readText("three.txt"), "3\n");
  assert(!(await exists(ws.at("added.txt"))), "the added file was removed again");
});

Deno.test("declare: every path, including a move destination, with the patch as preview", async () => {
  await using ws = await makeWorkspace();
  const text = patch("*** Update File: a.ts", "*** Move to: b.ts", "*** Add File: c/d.ts", "+x");
  const access = await applyPatchTool.declare({ patch: text }, ws.ctx);
  assertEquals(access.key, "edit");
  assertEquals(access.patterns, ["a.ts", "b.ts", "c/d.ts"]);
  assertEquals(access.writes, [ws.at("a.ts"), ws.at("b.ts"), ws.at("c/d.ts")]);
  assertEquals(access.preview, text);
});

Deno.test("parser: unified-diff style @@ headers carry no anchor", () => {
  const [op] = parsePatch(patch("*** Update File: a", "@@ -1,2 +1,2 @@", "-a", "+b"));
  assert(op.kind === "update");
  assertEquals(op.chunks[0].anchor, "");
});

Deno.test("an @@ line that is also the chunk's first context line still matches", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "f.py": "def a():\n    return 1\n\ndef b():\n    return 2\n" });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: f.py",
      "@@ def b():",
      " def b():",
      "-    return 2",
      "+    return 3",
    ),
  });
  assertEquals(await ws.readText("f.py"), "def a():\n    return 1\n\ndef b():\n    return 3\n");
});

Deno.test("*** End of File after an added file is accepted and adds nothing", async () => {
  await using ws = await makeWorkspace();
  await ws.run(applyPatchTool, { patch: patch("*** Add File: n.txt", "+only", "*** End of File") });
  assertEquals(await ws.readText("n.txt"), "only\n");
});

Deno.test("a chunk written with too little indentation adds its lines at the file's depth", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, {
    "m.py":
      "class A:\n    def f(self):\n        if self.x:\n            return 1\n        return 2\n",
  });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: m.py",
      "@@",
      " def f(self):",
      "     if self.x:",
      "-        return 1",
      "+        log()",
      "+        return 3",
      "     return 2",
    ),
  });
  assertEquals(
    await ws.readText("m.py"),
    "class A:\n    def f(self):\n        if self.x:\n            log()\n            return 3\n        return 2\n",
  );
});

Deno.test("a tab-indented file gets tabs where the chunk was written with spaces", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "g.go": "func f() {\n\tif x {\n\t\treturn 1\n\t}\n}\n" });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: g.go",
      "@@",
      "     if x {",
      "-        return 1",
      "+        return 2",
      "     }",
    ),
  });
  assertEquals(await ws.readText("g.go"), "func f() {\n\tif x {\n\t\treturn 2\n\t}\n}\n");
});

Deno.test("a chunk that does not match names the closest lines, so the model can look", async () => {
  await using ws = await makeWorkspace();
  const body = Array.from({ length: 40 }, (_, i) => `line ${i + 1}`);
  body[29] = "const total = sum(items);";
  body[30] = "return total;";
  await seed(ws, { "c.ts": body.join("\n") + "\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch(
      "*** Update File: c.ts",
      "@@",
      " const total = sum(items);",
      "-return totl;",
      "+return total * 2;",
    ),
  });
  assertEquals(error.code, "no_match");
  assertStringIncludes(error.message, "The closest text is at lines 30-31.");
  assertStringIncludes(error.hint ?? "", "around line 30");
  assertEquals(error.metadata?.closest, "30-31");
});

Deno.test("the title names the file of a one-file patch, and counts files otherwise", async () => {
  await using ws = await makeWorkspace();
  const result = await ws.run(applyPatchTool, { patch: patch("*** Add File: one.txt", "+x") });
  assertEquals(result.title, "one.txt (+1 -0)");
  const two = await ws.run(applyPatchTool, {
    patch: patch("*** Add File: a.txt", "+x", "*** Add File: b.txt", "+y", "+z"),
  });
  assertEquals(two.title, "2 files (+3 -0)");
});

Deno.test("a move reports the change of content under the new name, not a whole new file", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "old.ts": "a\nb\nc\n" });
  const result = await ws.run(applyPatchTool, {
    patch: patch("*** Update File: old.ts", "*** Move to: new.ts", "@@", " a", "-b", "+B", " c"),
  });
  assertStringIncludes(result.output, "R old.ts → new.ts (+1 -1)");
  assertEquals(
    result.metadata?.diff,
    "--- a/old.ts\n+++ b/new.ts\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n",
  );
  assertEquals([result.metadata?.additions, result.metadata?.deletions], [1, 1]);
  assertEquals(result.title, "new.ts (+1 -1)");
});

Deno.test("a patch sent inside a markdown code fence is applied; line numbers still count from the top", async () => {
  await using ws = await makeWorkspace();
  const fenced = ["```diff", patch("*** Add File: f.txt", "+x"), "```"].join("\n");
  await ws.run(applyPatchTool, { patch: fenced });
  assertEquals(await ws.readText("f.txt"), "x\n");
  const error = await ws.fail(applyPatchTool, {
    patch: ["```", patch("*** Add File: g.txt", "y"), "```"].join("\n"),
  });
  assertStringIncludes(error.message, "Patch line 4:");
});
