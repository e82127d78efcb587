/**
 * A corpus of the edits models get wrong in ways that are safe to repair:
 * old_string copied with read's line-number gutter, typed with typographic
 * quotes or dashes where the file has plain ones (or the reverse), and with
 * blank lines at its ends that the file does not have there. Each is
 * repaired only into a unique match, the result says what was repaired, and
 * the file keeps its own quotes and blank lines wherever the edit changes
 * nothing. Also: an edit that changes nothing on an empty file is a no-op.
 */
import { assert, assertEquals, assertStringIncludes } from "../../../support/assert.ts";
import { applyEdit } from "../../../../src/tools/files/match/match.ts";
import { editTool } from "../../../../src/tools/files/edit.ts";
import { readTool } from "../../../../src/tools/files/read.ts";
import { ToolError } from "../../../../src/tools/tool.ts";
import { makeWorkspace } from "../../_context.ts";

interface Repair {
  name: string;
  file: string;
  old: string;
  new: string;
  /** The text after the edit, or the error code it must fail with. */
  result?: string;
  error?: string;
  /** Words the outcome's `how` must contain. */
  how?: string;
}

const gutter = (first: number, ...lines: string[]) =>
  lines.map((line, i) => `${String(first + i).padStart(6)}\t${line}`).join("\n");

const corpus: Repair[] = [
  {
    name: "gutter: old and new both copied with read's line numbers",
    file: "import x;\nfunction a() {\n  return 1;\n}\n",
    old: gutter(2, "function a() {", "  return 1;"),
    new: gutter(2, "function a() {", "  return 2;"),
    result: "import x;\nfunction a() {\n  return 2;\n}\n",
    how: "line-number",
  },
  {
    name: "gutter: only old_string carries the numbers",
    file: "a\nfoo();\nb\n",
    old: gutter(2, "foo();"),
    new: "bar();",
    result: "a\nbar();\nb\n",
    how: "line-number",
  },
  {
    name: "gutter: numbers without their padding, a blank line copied without its tab",
    file: "one\n\nthree\nfour\n",
    old: "1\tone\n2\n3\tthree",
    new: "ONE\n\nTHREE",
    result: "ONE\n\nTHREE\nfour\n",
    how: "line-number",
  },
  {
    name: "gutter: a repaired old_string found twice is ambiguous, never guessed",
    file: "x\ny\nx\ny\n",
    old: gutter(1, "x", "y"),
    new: "z",
    error: "ambiguous_match",
  },
  {
    name: "gutter: numbers that do not count up are not read as a gutter",
    file: "foo\nbar\n",
    old: gutter(1, "foo") + "\n" + gutter(7, "bar"),
    new: "baz",
    error: "no_match",
  },
  {
    name: "typographic: curly quotes typed where the file has plain ones; the file's kept",
    file: `log("it's done");\nnext();\n`,
    old: "log(“it’s done”);",
    new: "log(“it’s finished”);",
    result: `log("it's finished");\nnext();\n`,
    how: "typographic",
  },
  {
    name: "typographic: new quotes in the changed part follow the file's style",
    file: "say('hi')\n",
    old: "say(‘hi’)",
    new: "say(‘hello’, ‘you’)",
    result: "say('hello', 'you')\n",
    how: "typographic",
  },
  {
    name: "typographic: the reverse, plain dash and quotes where the file has typographic ones",
    file: "Weather — “fine” today\n",
    old: 'Weather - "fine" today',
    new: 'Weather - "rainy" today',
    result: "Weather — “rainy” today\n",
    how: "typographic",
  },
  {
    name: "typographic: two places alike after the repair is ambiguous",
    file: 'say("a")\nsay(“a”)\n',
    old: "say(„a“)",
    new: 'say("b")',
    error: "ambiguous_match",
  },
  {
    name: "blank lines: extra blank lines around old_string are not added around the change",
    file: "x = 1\ny = 2\nz = 3\n",
    old: "\n\ny = 2\n\n",
    new: "\n\ny = 20\n\n",
    result: "x = 1\ny = 20\nz = 3\n",
    how: "blank lines",
  },
  {
    name: "blank lines: trailing blank lines the file lacks, fewer in new_string",
    file: "x = 1\ny = 2\n\nz = 3\n",
    old: "y = 2\n\n\n\n",
    new: "y = 20\n",
    result: "x = 1\ny = 20\n\nz = 3\n",
    how: "blank lines",
  },
  {
    name: "blank lines: an indented first line matched loosely is not indented twice",
    file: "if (a) {\n    foo  (x);\n}\n",
    old: "    foo (x);",
    new: "    foo(y);",
    result: "if (a) {\n    foo(y);\n}\n",
  },
  {
    name: "blank lines: a repaired boundary that matches twice is ambiguous",
    file: "a\nfoo\nb\nfoo\n",
    old: "\n\nfoo\n\n",
    new: "bar",
    error: "ambiguous_match",
  },
];

for (const c of corpus) {
  Deno.test(`repair corpus — ${c.name}`, () => {
    try {
      const outcome = applyEdit(c.file, { old_string: c.old, new_string: c.new }, "f.ts");
      assert(c.error === undefined, `expected ${c.error}, got ${JSON.stringify(outcome.text)}`);
      assertEquals(outcome.text, c.result);
      if (c.how) assertStringIncludes(outcome.how, c.how);
    } catch (error) {
      if (!(error instanceof ToolError) || c.error === undefined) throw error;
      assertEquals(error.code, c.error, error.message);
    }
  });
}

Deno.test("the edit result says what was repaired", async () => {
  await using ws = await makeWorkspace();
  await ws.write("q.ts", `const s = "a - b";\n`);
  await ws.run(readTool, { file_path: "q.ts" });
  const result = await ws.run(editTool, {
    file_path: "q.ts",
    old_string: gutter(1, "const s = “a – b”;"),
    new_string: "const s = “a – c”;",
  });
  assertEquals(await ws.readText("q.ts"), `const s = "a - c";\n`);
  assertStringIncludes(result.output, "line-number");
  assertStringIncludes(result.output, "typographic");
});

Deno.test("edit: identical empty old and new strings on an empty file is no_op_edit", async () => {
  await using ws = await makeWorkspace();
  await ws.write("empty.txt", "");
  await ws.run(readTool, { file_path: "empty.txt" });
  const error = await ws.fail(editTool, { file_path: "empty.txt", old_string: "", new_string: "" });
  assertEquals(error.code, "no_op_edit");
  assertEquals(ws.snapshots.length, 0, "nothing was written");
});
