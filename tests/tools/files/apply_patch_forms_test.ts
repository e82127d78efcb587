/**
 * apply_patch as models trained on other harnesses send it: wrapped in a
 * shell here-document, with blank lines between sections, chunks out of file
 * order, a move that only renames, and an Add File or a move over a file that
 * already exists (allowed only when that file was read and is unchanged).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { applyPatchTool } from "../../../src/tools/files/apply_patch.ts";
import { parsePatch } from "../../../src/tools/files/_apply_patch_parser.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

const patch = (...lines: string[]) => ["*** Begin Patch", ...lines, "*** End Patch"].join("\n");

async function seed(ws: TestWorkspace, files: Record<string, string>): Promise<void> {
  for (const [name, content] of Object.entries(files)) {
    await ws.write(name, content);
    await ws.run(readTool, { file_path: name });
  }
}

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

// Item 19: here-documents.

const body = patch("*** Update File: h.txt", "@@", "-old", "+new");

for (
  const [name, opening, closing] of [
    ["apply_patch <<'EOF'", "apply_patch <<'EOF'", "EOF"],
    ["apply_patch <<EOF", "apply_patch <<EOF", "EOF"],
    ['cat <<"PATCH"', 'cat <<"PATCH"', "PATCH"],
    ["bare <<'EOF'", "<<'EOF'", "EOF"],
    ["<<-EOF with indented close", "applypatch <<-EOF", "\tEOF"],
  ]
) {
  Deno.test(`a patch in a here-document (${name}) is applied as the fence wrapper is`, async () => {
    await using ws = await makeWorkspace();
    await seed(ws, { "h.txt": "old\n" });
    await ws.run(applyPatchTool, { patch: [opening, body, closing, ""].join("\n") });
    assertEquals(await ws.readText("h.txt"), "new\n");
  });
}

Deno.test("a here-document inside a code fence is unwrapped; errors count lines from the top", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "h.txt": "old\n" });
  await ws.run(applyPatchTool, {
    patch: ["```bash", "apply_patch <<'EOF'", body, "EOF", "```"].join("\n"),
  });
  assertEquals(await ws.readText("h.txt"), "new\n");
  const error = await ws.fail(applyPatchTool, {
    patch: ["apply_patch <<'EOF'", patch("*** Add File: g.txt", "y"), "EOF"].join("\n"),
  });
  assertStringIncludes(error.message, "Patch line 4:");
});

Deno.test("a here-document whose closing word does not match is not unwrapped", async () => {
  await using ws = await makeWorkspace();
  const error = await ws.fail(applyPatchTool, {
    patch: ["apply_patch <<'EOF'", patch("*** Add File: g.txt", "+y"), "END"].join("\n"),
  });
  assertEquals(error.code, "bad_input");
  assert(!(await exists(ws.at("g.txt"))));
});

// Item 20: blank lines between sections.

Deno.test("a blank line between *** End of File and *** End Patch is a separator", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "e.txt": "a\nb\n" });
  await ws.run(applyPatchTool, {
    patch: patch("*** Update File: e.txt", "@@", " a", "-b", "+B", "*** End of File", ""),
  });
  assertEquals(await ws.readText("e.txt"), "a\nB\n");
});

Deno.test("blank lines between sections and before a chunk are separators", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "a.txt": "1\n2\n", "b.txt": "x\ny\n" });
  await ws.run(applyPatchTool, {
    patch: patch(
      "",
      "*** Update File: a.txt",
      "",
      "@@",
      " 1",
      "-2",
      "+two",
      "*** End of File",
      "",
      "",
      "*** Update File: b.txt",
      "@@",
      " x",
      "-y",
      "+Y",
      "",
    ),
  });
  assertEquals(await ws.readText("a.txt"), "1\ntwo\n");
  assertEquals(await ws.readText("b.txt"), "x\nY\n");
});

// Item 21: chunks out of file order.

Deno.test("a pure addition, then a chunk earlier in the file: each lands where it matches", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "o.ts": "import a;\nfunction f() {\n  return 1;\n}\n" });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: o.ts",
      "@@",
      "+export const added = true;",
      "@@",
      " function f() {",
      "-  return 1;",
      "+  return 2;",
    ),
  });
  assertEquals(
    await ws.readText("o.ts"),
    "import a;\nfunction f() {\n  return 2;\n}\nexport const added = true;\n",
  );
});

Deno.test("chunks in reverse file order land where each matches uniquely", async () => {
  await using ws = await makeWorkspace();
  const lines = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`);
  await seed(ws, { "r.txt": lines.join("\n") + "\n" });
  await ws.run(applyPatchTool, {
    patch: patch(
      "*** Update File: r.txt",
      "@@",
      " line 15",
      "-line 16",
      "+LINE 16",
      "@@",
      " line 3",
      "-line 4",
      "+LINE 4",
    ),
  });
  const expected = [...lines];
  expected[3] = "LINE 4";
  expected[15] = "LINE 16";
  assertEquals(await ws.readText("r.txt"), expected.join("\n") + "\n");
});

Deno.test("an out-of-order chunk whose lines occur twice before is ambiguous and fails", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "d.txt": "x\ny\nx\ny\nend\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch("*** Update File: d.txt", "@@", " end", "+after", "@@", " x", "-y", "+Y"),
  });
  assertEquals(error.code, "ambiguous_match");
  assertStringIncludes(error.message, "lines 1-2, 3-4");
  assertEquals(await ws.readText("d.txt"), "x\ny\nx\ny\nend\n");
});

Deno.test("two chunks that would change the same lines are refused", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "s.txt": "a\nb\nc\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch("*** Update File: s.txt", "@@", " b", "-c", "+C", "@@", " a", "-b", "+B"),
  });
  assertEquals(error.code, "no_match");
  assertStringIncludes(error.message, "overlaps");
  assertEquals(await ws.readText("s.txt"), "a\nb\nc\n");
});

// Item 22: a move with only context.

Deno.test("a *** Move to: whose only chunk is context is a rename", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "old.txt": "a\nb\n" });
  const result = await ws.run(applyPatchTool, {
    patch: patch("*** Update File: old.txt", "*** Move to: new.txt", "@@", " a", " b"),
  });
  assert(!(await exists(ws.at("old.txt"))));
  assertEquals(await ws.readText("new.txt"), "a\nb\n");
  assertStringIncludes(result.output, "R old.txt → new.txt (+0 -0)");
});

Deno.test("a context-only rename whose context does not match the file fails", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "old.txt": "a\nb\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch("*** Update File: old.txt", "*** Move to: new.txt", "@@", " zzz"),
  });
  assertEquals(error.code, "no_match");
  assert(await exists(ws.at("old.txt")));
});

Deno.test("without a move, a chunk of context only still changes nothing and is refused", () => {
  let message = "";
  try {
    parsePatch(patch("*** Update File: a.txt", "@@", " a"));
  } catch (error) {
    message = (error as Error).message;
  }
  assertStringIncludes(message, "changes nothing");
});

// Item 23: Add File or a move over an existing file.

Deno.test("*** Add File over a file read in this session replaces it, keeping CRLF", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "x.txt": "old 1\r\nold 2\r\n" });
  const result = await ws.run(applyPatchTool, {
    patch: patch("*** Add File: x.txt", "+new 1", "+new 2", "+new 3"),
  });
  assertEquals(await ws.readText("x.txt"), "new 1\r\nnew 2\r\nnew 3\r\n");
  assertStringIncludes(result.output, "A x.txt (+3 -2, replaced the existing file)");
  assertEquals(ws.snapshots.map((s) => s.before), ["old 1\r\nold 2\r\n"]);
});

Deno.test("*** Add File over a file not read, or changed since, is refused with that reason", async () => {
  await using ws = await makeWorkspace();
  await ws.write("unread.txt", "u\n");
  const unread = await ws.fail(applyPatchTool, { patch: patch("*** Add File: unread.txt", "+y") });
  assertEquals(unread.code, "file_not_read");
  assertStringIncludes(unread.message, "unread.txt already exists");
  await seed(ws, { "changed.txt": "c\n" });
  await ws.write("changed.txt", "c2\n");
  const changed = await ws.fail(applyPatchTool, {
    patch: patch("*** Add File: changed.txt", "+y"),
  });
  assertEquals(changed.code, "file_changed");
  assertEquals(await ws.readText("unread.txt"), "u\n");
  assertEquals(await ws.readText("changed.txt"), "c2\n");
});

Deno.test("a move onto a file read in this session replaces it; onto an unread one it is refused", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "src.txt": "s\n", "dest.txt": "d\n" });
  await ws.write("other.txt", "o\n");
  const refused = await ws.fail(applyPatchTool, {
    patch: patch("*** Update File: src.txt", "*** Move to: other.txt", "@@", "-s", "+S"),
  });
  assertEquals(refused.code, "file_not_read");
  assertStringIncludes(refused.message, "other.txt already exists");
  assertEquals(await ws.readText("other.txt"), "o\n");

  const result = await ws.run(applyPatchTool, {
    patch: patch("*** Update File: src.txt", "*** Move to: dest.txt", "@@", "-s", "+S"),
  });
  assertEquals(await ws.readText("dest.txt"), "S\n");
  assert(!(await exists(ws.at("src.txt"))));
  assertStringIncludes(result.output, "R src.txt → dest.txt (+1 -1, replaced the existing file)");
  const befores = Object.fromEntries(ws.snapshots.map((s) => [s.path, s.before]));
  assertEquals(befores[ws.at("dest.txt")], "d\n", "undo can put the replaced file back");
});

Deno.test("one file named twice through different spellings is refused", async () => {
  await using ws = await makeWorkspace();
  await seed(ws, { "a.txt": "a\n" });
  const error = await ws.fail(applyPatchTool, {
    patch: patch("*** Delete File: a.txt", "*** Add File: ./a.txt", "+b"),
  });
  assertEquals(error.code, "bad_input");
  assertStringIncludes(error.message, "twice");
  assertEquals(await ws.readText("a.txt"), "a\n");
});
