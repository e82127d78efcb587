/**
 * The replacer chain, case by case: which replacer wins for which kind of
 * slip, what the text looks like afterwards, and the refusals (ambiguity,
 * the anchor threshold, oversized matches, no-ops, no match).
 */
import { assert, assertEquals, assertStringIncludes } from "../../../support/assert.ts";
import { applyEdit } from "../../../../src/tools/files/match/match.ts";
import {
  ContentIndex,
  indentationFlexibleReplacer,
  REPLACERS,
} from "../../../../src/tools/files/match/replacers.ts";
import { levenshtein, similarity } from "../../../../src/tools/files/match/similarity.ts";
import { reindent } from "../../../../src/tools/files/match/indent.ts";
import { ToolError } from "../../../../src/tools/tool.ts";

interface Case {
  name: string;
  file: string;
  old: string;
  new: string;
  replaceAll?: boolean;
  /** Expected replacer and resulting text, or the expected error code. */
  replacer?: string;
  result?: string;
  error?: string;
  /** Substrings the error message must contain (line numbers of candidates…). */
  mentions?: string[];
}

const fn = [
  "function total(items) {",
  "  let sum = 0;",
  "  for (const item of items) sum += item.price;",
  "  return sum;",
  "}",
  "",
].join("\n");

const cases: Case[] = [
  {
    name: "exact: a unique substring",
    file: "alpha\nbeta\ngamma\n",
    old: "beta",
    new: "BETA",
    replacer: "exact",
    result: "alpha\nBETA\ngamma\n",
  },
  {
    name: "exact: two occurrences are ambiguous and both lines are named",
    file: "x = 1\ny = 2\nx = 1\n",
    old: "x = 1",
    new: "x = 3",
    error: "ambiguous_match",
    mentions: ["lines 1, 3"],
  },
  {
    name: "multi-occurrence: replace_all changes every exact occurrence",
    file: "foo(a)\nbar(foo)\nfoo\n",
    old: "foo",
    new: "baz",
    replaceAll: true,
    replacer: "exact",
    result: "baz(a)\nbar(baz)\nbaz\n",
  },
  {
    name: "multi-occurrence: replace_all with an indentation slip uses line-trimmed",
    file: "  if (a) {\n    go();\n  }\n  if (a) {\n    go();\n  }\n",
    old: "if (a) {\n  go();\n}",
    new: "if (b) {\n  stop();\n}",
    replaceAll: true,
    replacer: "line-trimmed",
    result: "  if (b) {\n    stop();\n  }\n  if (b) {\n    stop();\n  }\n",
  },
  {
    name: "line-trimmed: dropped indentation, new_string re-indented",
    file: "class A {\n    run() {\n        go();\n    }\n}\n",
    old: "run() {\n    go();\n}",
    new: "run() {\n    go();\n    stop();\n}",
    replacer: "line-trimmed",
    result: "class A {\n    run() {\n        go();\n        stop();\n    }\n}\n",
  },
  {
    name: "line-trimmed: trailing whitespace in the file",
    file: "a = 1   \nb = 2\t\nc = 3\n",
    old: "a = 1\nb = 2",
    new: "a = 10\nb = 20",
    replacer: "line-trimmed",
    result: "a = 10\nb = 20\nc = 3\n",
  },
  {
    name: "line-trimmed: the same block at two depths is ambiguous",
    file: "if (x) {\n  y();\n}\n  if (x) {\n    y();\n  }\n",
    old: "  if (x) {\n      y();\n  }",
    new: "if (z) {}",
    error: "ambiguous_match",
    mentions: ["1-3", "4-6"],
  },
  {
    name: "block-anchor: a typo in a middle line",
    file: fn,
    old: fn.replace("item.price", "item.prize").trimEnd(),
    new: "function total(items) {\n  return items.length;\n}",
    replacer: "block-anchor",
    result: "function total(items) {\n  return items.length;\n}\n",
  },
  {
    name: "block-anchor: a middle line missing from old_string",
    file:
      "function f() {\n  const a = compute(1);\n  log();\n  const b = compute(2);\n  return a + b;\n}\n",
    old: "function f() {\n  const a = compute(1);\n  const b = compute(2);\n  return a + b;\n}",
    new: "function f() {\n  return 0;\n}",
    replacer: "block-anchor",
    result: "function f() {\n  return 0;\n}\n",
  },
  {
    name: "block-anchor: anchors alone are not enough (middle below 0.65)",
    file: fn,
    old: "function total(items) {\n  throw new Error('unsupported operation');\n}",
    new: "x",
    error: "no_match",
    mentions: ["line"],
  },
  {
    name: "block-anchor: two similar candidates are ambiguous",
    file: "begin\n  step one\nend\nbegin\n  step ona\nend\n",
    old: "begin\n  step onx\nend",
    new: "begin\nend",
    error: "ambiguous_match",
    mentions: ["1-3", "4-6"],
  },
  {
    name: "whitespace-normalised: collapsed runs of spaces inside a line",
    file: "const  total =   a +  b;\n",
    old: "const total = a + b;",
    new: "const total = a - b;",
    replacer: "whitespace-normalised",
    result: "const total = a - b;\n",
  },
  {
    name: "escape-normalised: old_string and new_string escaped once too often",
    file: 'say("hi")\nnext()\n',
    old: 'say(\\"hi\\")\\nnext()',
    new: 'say(\\"bye\\")\\nnext()',
    replacer: "escape-normalised",
    result: 'say("bye")\nnext()\n',
  },
  {
    name: "escape-normalised: a whole block sent on one escaped line is not judged oversized",
    file: "one\n\ttwo\nthree\nfour\nfive\n",
    old: "one\\n\\ttwo\\nthree\\nfour\\nfive",
    new: "1\\n\\t2\\n3\\n4\\n5",
    replacer: "escape-normalised",
    result: "1\n\t2\n3\n4\n5\n",
  },
  {
    name: "trimmed-boundary: stray whitespace around a mid-line fragment",
    file: "x = compute(a,b) + 1\n",
    old: "\ncompute(a,b)\t",
    new: "measure(a,b)",
    replacer: "trimmed-boundary",
    result: "x = measure(a,b) + 1\n",
  },
  {
    name: "context-aware: a wrong first line with the rest right",
    file: "def area(r):\n    pi = 3.14159\n    return pi * r * r\n\nprint(area(2))\n",
    old: "def area(rad):\n    pi = 3.14159\n    return pi * r * r",
    new: "def area(r):\n    return 3.14159 * r * r",
    replacer: "context-aware",
    result: "def area(r):\n    return 3.14159 * r * r\n\nprint(area(2))\n",
  },
  {
    name: "tabs vs spaces: a tab-indented file edited with spaces keeps tabs",
    file: "func main() {\n\tif ok {\n\t\treturn\n\t}\n}\n",
    old: "    if ok {\n        return\n    }",
    new: "    if ok {\n        log()\n        return\n    }",
    replacer: "line-trimmed",
    result: "func main() {\n\tif ok {\n\t\tlog()\n\t\treturn\n\t}\n}\n",
  },
  {
    name: "unicode: accents, emoji and quotes survive a fuzzy match",
    file: "  naïve = “café” 🎉\n  done = true\n",
    old: "naïve = “café” 🎉\ndone = true",
    new: "naïve = “thé” 🎊\ndone = false",
    replacer: "line-trimmed",
    result: "  naïve = “thé” 🎊\n  done = false\n",
  },
  {
    name: "CRLF in old_string against the LF form of the text",
    file: "one\ntwo\nthree\n",
    old: "one\r\ntwo",
    new: "1\r\n2",
    replacer: "exact",
    result: "1\n2\nthree\n",
  },
  {
    name: "no_op: old_string equals new_string",
    file: "same\n",
    old: "same",
    new: "same",
    error: "no_op_edit",
  },
  {
    name: "no_op: the fuzzy match already reads as new_string",
    file: "  keep = 1\n  this = 2\n",
    old: "keep = 1\nthis = 2  ",
    new: "keep = 1\nthis = 2",
    error: "no_op_edit",
  },
  {
    name: "no_match names the closest region",
    file: "a\nb\nc\nstart()\nmiddle()\nfinish()\nz\n",
    old: "start()\nmiddel()\nfinal()",
    new: "x",
    error: "no_match",
    mentions: ["lines 4-6"],
  },
  {
    name: "oversized: a whitespace match far larger than old_string is refused",
    file: `a${" ".repeat(400)}b\n`,
    old: "a b",
    new: "ab",
    error: "no_match",
    mentions: ["refused as much larger"],
  },
  {
    name: "no_match explains line-number prefixes copied from read, when even without them",
    file: "alpha\nbeta\n",
    old: "     1\talpha\n     2\tbetta",
    new: "x",
    error: "no_match",
    mentions: ["line numbers"],
  },
  {
    name: "empty old_string on a file with content",
    file: "content\n",
    old: "",
    new: "x",
    error: "bad_input",
  },
];

for (const c of cases) {
  Deno.test(`replacer chain — ${c.name}`, () => {
    const request = { old_string: c.old, new_string: c.new, replace_all: c.replaceAll };
    if (c.error) {
      let caught: unknown;
      try {
        applyEdit(c.file, request, "f.ts");
      } catch (error) {
        caught = error;
      }
      assert(caught instanceof ToolError, `expected a ToolError, got ${caught}`);
      assertEquals(caught.code, c.error, caught.message);
      for (const text of c.mentions ?? []) assertStringIncludes(caught.message, text);
      assert(caught.hint, "every refusal carries a hint");
      return;
    }
    const outcome = applyEdit(c.file, request, "f.ts");
    assertEquals(outcome.replacer, c.replacer);
    assertEquals(outcome.text, c.result);
  });
}

Deno.test("block-anchor threshold: 0.65 similarity passes, just below fails", () => {
  // One middle line of 20 characters: 7 edits give exactly 0.65, 8 give 0.60.
  const middle = "abcdefghijklmnopqrst";
  const file = `start {\n${middle}\n}\n`;
  const at065 = "XXXXXXXhijklmnopqrst";
  const at060 = "XXXXXXXXijklmnopqrst";
  assertEquals(similarity(middle, at065), 0.65);
  const passed = applyEdit(file, { old_string: `start {\n${at065}\n}`, new_string: "done" }, "f");
  assertEquals(passed.replacer, "block-anchor");
  assertEquals(passed.text, "done\n");
  let code = "";
  try {
    applyEdit(file, { old_string: `start {\n${at060}\n}`, new_string: "done" }, "f");
  } catch (error) {
    code = (error as ToolError).code;
  }
  assertEquals(code, "no_match");
});

Deno.test("block-anchor needs three lines: two-line old_string with a typo does not match", () => {
  let code = "";
  try {
    applyEdit("if (a) {\n}\n", { old_string: "if (b) {\n}", new_string: "x" }, "f");
  } catch (error) {
    code = (error as ToolError).code;
  }
  assertEquals(code, "no_match");
});

Deno.test("indentation-flexible: a block shifted as a whole matches, relative depth must agree", () => {
  const content = new ContentIndex("        if (a) {\n            b();\n        }\n");
  const shifted = indentationFlexibleReplacer.find(content, "if (a) {\n    b();\n}");
  assertEquals(shifted.length, 1);
  assertEquals(content.describe(shifted[0]), "1-3");
  const flattened = indentationFlexibleReplacer.find(content, "if (a) {\nb();\n}");
  assertEquals(flattened.length, 0);
});

Deno.test("the chain runs in the documented order", () => {
  assertEquals(REPLACERS.map((r) => r.name), [
    "exact",
    "line-number-gutter",
    "line-trimmed",
    "punctuation-normalised",
    "block-anchor",
    "whitespace-normalised",
    "indentation-flexible",
    "escape-normalised",
    "trimmed-boundary",
    "context-aware",
  ]);
});

Deno.test("replace_all never applies a similarity match to many places", () => {
  const file = "begin\n  step one\nend\nbegin\n  step one\nend\n";
  let code = "";
  try {
    applyEdit(
      file,
      { old_string: "begin\n  step onx\nend", new_string: "x", replace_all: true },
      "f",
    );
  } catch (error) {
    code = (error as ToolError).code;
  }
  assertEquals(code, "no_match");
});

Deno.test("levenshtein: known distances, symmetric, early exit above the limit", () => {
  assertEquals(levenshtein("kitten", "sitting"), 3);
  assertEquals(levenshtein("sitting", "kitten"), 3);
  assertEquals(levenshtein("", "abc"), 3);
  assertEquals(levenshtein("abc", "abc"), 0);
  assertEquals(levenshtein("aaaaaaaaaa", "bbbbbbbbbb", 2), 3);
});

Deno.test("reindent: shifts left, right, and converts spaces to the file's tabs", () => {
  assertEquals(reindent(["a", "  b"], ["    a", "      b"], "a\n  c"), "    a\n      c");
  assertEquals(reindent(["    a"], ["a"], "    x\n      y"), "x\n  y");
  assertEquals(
    reindent(["    a", "        b"], ["\ta", "\t\tb"], "    x\n        y"),
    "\tx\n\t\ty",
  );
  // Inconsistent shifts: leave new_string alone.
  assertEquals(reindent(["  a", "b"], ["a", "  b"], "  a\nb"), "  a\nb");
  assertEquals(reindent(["a", "  b", "c"], ["  a", "    b", "      c"], "a\nb"), "a\nb");
});

Deno.test("reindent: a first line sent without its indentation takes the file's", () => {
  // Copied from where the text starts: the first line lost its indentation, the rest kept theirs.
  assertEquals(
    reindent(["return f(", '    "x",'], ["  return f(", '    "x",'], 'return f(\n    "y",'),
    '  return f(\n    "y",',
  );
  // The rest shifted too: that shift applies to the rest of new_string.
  assertEquals(
    reindent(
      ["return f(", '      "x",'],
      ["  return f(", '    "x",'],
      'return f(\n      "y",\n    )',
    ),
    '  return f(\n    "y",\n  )',
  );
  assertEquals(reindent(["a", "b"], ["  a", "    b"], "a\nb"), "  a\n    b");
});
