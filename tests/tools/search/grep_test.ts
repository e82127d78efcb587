/**
 * grep: gitignore-aware results in `path:line: text` form, include and
 * context, the cap of 100 with a notice, invalid patterns, binary files —
 * and the ripgrep engine and the TypeScript fallback giving identical output
 * on the same tree.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { createGrepTool, grepTool } from "../../../src/tools/search/grep.ts";
import { findRipgrep, ripgrepArgs } from "../../../src/tools/search/_grep_rg.ts";
import type { TestWorkspace } from "../_context.ts";
import { makeWorkspace } from "../_context.ts";
import { searchWorkspace, VISIBLE } from "../_search_tree.ts";

const hasRipgrep = findRipgrep() !== null;
if (!hasRipgrep) {
  console.warn("SKIPPED: ripgrep (rg) is not on PATH; the rg-vs-fallback tests cannot run.");
}

const ripgrep = createGrepTool({ engine: "ripgrep" });
const fallback = createGrepTool({ engine: "fallback" });
const engines = hasRipgrep ? [ripgrep, fallback] : [fallback];

async function bothEngines(ws: TestWorkspace, input: Record<string, unknown>): Promise<string> {
  const outputs = [];
  for (const tool of engines) outputs.push((await ws.run(tool, input)).output);
  if (outputs.length === 2) {
    assertEquals(outputs[1], outputs[0], `engines differ for ${JSON.stringify(input)}`);
  }
  return outputs[0];
}

Deno.test("matches come as path:line: text, files in path order, ignored files skipped", async () => {
  await using ws = await searchWorkspace();
  const output = await bothEngines(ws, { pattern: "needle" });
  assertEquals(
    output,
    [
      ".github/workflows/ci.yml:1: name: ci # needle",
      "",
      "README.md:2: needle in the readme",
      "",
      "pkg/keep.log:1: needle kept log",
      "",
      "pkg/lib/index.ts:1: export * from './needle.ts';",
      "",
      "src/main.ts:2: // needle one",
      "",
      "src/secret.txt:1: needle secret, but not anchored here",
      "",
      "src/util/helpers.ts:2:   return 'needle';",
      "",
      "vendor/repo/x.log:1: needle in a nested repo log",
    ].join("\n"),
  );
});

Deno.test("include, path, context and case-insensitivity agree across engines", async () => {
  await using ws = await searchWorkspace();
  const ts = await bothEngines(ws, { pattern: "needle", include: "*.ts" });
  assertEquals(ts.split("\n\n").length, 3);
  assertStringIncludes(
    await bothEngines(ws, { pattern: "needle", include: "src/**/*.ts" }),
    "src/util/helpers.ts:2:",
  );
  const scoped = await bothEngines(ws, { pattern: "needle", path: "src" });
  assert(!scoped.includes("debug.log"), "the root .gitignore applies below a sub-path");
  assertStringIncludes(scoped, "src/main.ts:2: // needle one");
  const context = await bothEngines(ws, {
    pattern: "needle",
    path: "src/main.ts",
    context_lines: 1,
  });
  assertEquals(
    context,
    "src/main.ts-1- import { help } from './util/helpers.ts';\nsrc/main.ts:2: // needle one\nsrc/main.ts-3- help();",
  );
  const insensitive = await bothEngines(ws, {
    pattern: "(?i)needle (one|two)",
    path: "src/main.ts",
  });
  assertEquals(insensitive, "src/main.ts:2: // needle one\nsrc/main.ts:4: // NEEDLE two");
  const anchored = await bothEngines(ws, { pattern: "^export\\s+\\w+", context_lines: 0 });
  assertStringIncludes(anchored, "src/util/helpers.ts:1: export function help() {");
});

Deno.test("context blocks are separated by -- and capped at 10 lines", async () => {
  await using ws = await makeWorkspace();
  const lines = Array.from(
    { length: 60 },
    (_, i) => (i === 5 || i === 40 ? `hit ${i}` : `line ${i}`),
  );
  await ws.write("f.txt", lines.join("\n") + "\n");
  const output = await bothEngines(ws, { pattern: "^hit", context_lines: 50 });
  const shown = output.split("\n");
  assertEquals(shown[0], "f.txt-1- line 0");
  assert(shown.includes("--"), "gap between the two blocks");
  assertEquals(shown[shown.length - 1], "f.txt-51- line 50");
});

Deno.test("more than 100 matching lines: the first 100 in path order and a notice", async () => {
  await using ws = await makeWorkspace();
  await ws.write("b.txt", Array.from({ length: 80 }, (_, i) => `match ${i}`).join("\n") + "\n");
  await ws.write("a.txt", Array.from({ length: 70 }, (_, i) => `match ${i}`).join("\n") + "\n");
  await ws.write("c.txt", "match only\n");
  const output = await bothEngines(ws, { pattern: "match" });
  const matches = output.split("\n").filter((line) => /^[abc]\.txt:\d+:/.test(line));
  assertEquals(matches.length, 100);
  assertEquals(matches[69], "a.txt:70: match 69");
  assertEquals(matches[99], "b.txt:30: match 29");
  assertStringIncludes(
    output,
    "[Showing the first 100 of 151 matching lines (3 files, in path order).",
  );
});

Deno.test("an invalid regular expression is invalid_pattern in both engines", async () => {
  await using ws = await searchWorkspace();
  for (const tool of engines) {
    const error = await ws.fail(tool, { pattern: "foo(" });
    assertEquals(error.code, "invalid_pattern");
  }
});

Deno.test("a search root inside an ignored folder is searched, as an explicit path", async () => {
  await using ws = await searchWorkspace();
  const output = await bothEngines(ws, { pattern: "needle", path: "build" });
  assertEquals(output, "build/out.js:1: const needle = 1;");
});

Deno.test("a folder re-included by a deeper !rule is searched by both engines", async () => {
  await using ws = await makeWorkspace();
  await ws.write(".gitignore", "build/\n");
  await ws.write("pkg/.gitignore", "!build/\n");
  await ws.write("pkg/build/kept.js", "needle kept\n");
  await ws.write("build/gone.js", "needle gone\n");
  const output = await bothEngines(ws, { pattern: "needle" });
  assertEquals(output, "pkg/build/kept.js:1: needle kept");
});

Deno.test("gitignore rules are case-sensitive, as git and ripgrep read them on Linux", async () => {
  await using ws = await makeWorkspace();
  await ws.write(".gitignore", "*.LOG\n");
  await ws.write("a.log", "needle\n");
  await ws.write("b.LOG", "needle\n");
  assertEquals(await bothEngines(ws, { pattern: "needle" }), "a.log:1: needle");
});

Deno.test("binary files are skipped; no match says so", async () => {
  await using ws = await searchWorkspace();
  const output = await bothEngines(ws, { pattern: "needle", path: "bin" });
  assertStringIncludes(output, 'No matches for /needle/ in "bin"');
});

Deno.test("SKIFF_GREP=fallback selects the TypeScript engine", async () => {
  await using ws = await searchWorkspace();
  Deno.env.set("SKIFF_GREP", "fallback");
  try {
    const result = await ws.run(grepTool, { pattern: "needle" });
    assertEquals(result.metadata?.engine, "fallback");
  } finally {
    Deno.env.delete("SKIFF_GREP");
  }
});

Deno.test({
  name: "ripgrep's file set under our flags equals the TypeScript walk's",
  ignore: !hasRipgrep,
  async fn() {
    await using ws = await searchWorkspace();
    const args = ripgrepArgs({ pattern: "", root: ws.root, rootIsFile: false, context: 0 })
      .filter((arg) =>
        !["--null", "--line-number", "--with-filename", "--no-heading"].includes(arg)
      );
    const cut = args.indexOf("--regexp");
    const files = ["--files", ...args.slice(0, cut), "--", ws.root];
    const { stdout } = await new Deno.Command(findRipgrep()!, { args: files }).output();
    const listed = new TextDecoder().decode(stdout).trim().split("\n")
      .map((file) => file.slice(ws.root.length + 1)).sort();
    assertEquals(listed, VISIBLE);
  },
});

Deno.test("a large generated tree gives identical output in both engines", {
  ignore: !hasRipgrep,
}, async () => {
  await using ws = await makeWorkspace();
  await ws.write(".gitignore", "*.tmp\nout/\n");
  for (let d = 0; d < 15; d++) {
    await ws.write(`d${d}/.gitignore`, d % 3 === 0 ? "*.gen.ts\n" : "");
    for (let f = 0; f < 20; f++) {
      const body = Array.from(
        { length: 30 },
        (_, l) => `const v${l} = ${(d * f * l) % 7}; // t${l}`,
      ).join("\n");
      await ws.write(`d${d}/f${f}.ts`, body + "\n");
      await ws.write(`d${d}/f${f}.gen.ts`, "const v1 = 3;\n");
      await ws.write(`d${d}/f${f}.tmp`, "const v1 = 3;\n");
    }
  }
  for (
    const input of [
      { pattern: "= 3;" },
      { pattern: "v1\\d = [05]", context_lines: 2 },
      { pattern: "t2\\b", include: "*.ts" },
      { pattern: "= 6", path: "d4" },
    ]
  ) {
    await bothEngines(ws, input);
  }
});

Deno.test({
  name: "without permission to run rg, grep falls back to the TypeScript engine",
  ignore: !hasRipgrep,
  permissions: { read: true, write: true, env: true, run: false },
  async fn() {
    await using ws = await searchWorkspace();
    const result = await ws.run(ripgrep, { pattern: "needle", path: "src/main.ts" });
    assertEquals(result.metadata?.engine, "fallback");
    assertEquals(result.output, "src/main.ts:2: // needle one");
  },
});

Deno.test("in a CRLF file, $ matches at the end of a line in both engines", async () => {
  await using ws = await makeWorkspace();
  await ws.write("win.txt", "one\r\ntwo\r\nthree\r\n");
  await ws.write("unix.txt", "two\n");
  for (const tool of engines) {
    const output = (await ws.run(tool, { pattern: "^t\\w+o$" })).output;
    assertEquals(output, "unix.txt:1: two\n\nwin.txt:2: two");
  }
  assertEquals(
    await bothEngines(ws, { pattern: "e$", path: "win.txt", context_lines: 1 }),
    "win.txt:1: one\nwin.txt-2- two\nwin.txt:3: three",
  );
});

Deno.test("a match far along a long line shows the part of the line around it", async () => {
  await using ws = await makeWorkspace();
  const line = "x".repeat(3_000) + "useState(0)" + "y".repeat(3_000);
  await ws.write("bundle.min.js", `${line}\n${"z".repeat(600)}needle\n`);
  const output = await bothEngines(ws, { pattern: "useState|needle" });
  const [first, second] = output.split("\n");
  assertStringIncludes(first, "useState(0)");
  assertStringIncludes(first, "[line cut: characters 2901-3400 of 6011]");
  assert(first.length < 600, `line shown is ${first.length} characters`);
  // Near the end of the line: the window ends with it, and nothing follows.
  assertStringIncludes(second, "needle [line cut: characters 107-606 of 606]");
});

Deno.test("an include glob relative to the workspace works with a path, in both engines", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/tools/a.ts", "needle\n");
  await ws.write("src/b.ts", "needle\n");
  assertEquals(
    await bothEngines(ws, { pattern: "needle", path: "src", include: "src/tools/*.ts" }),
    "src/tools/a.ts:1: needle",
  );
  assertEquals(
    await bothEngines(ws, { pattern: "needle", path: "src", include: "tools/*.ts" }),
    "src/tools/a.ts:1: needle",
  );
});

Deno.test("look-around and backreferences work with ripgrep present: the TypeScript engine takes them", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.ts", "export const a = 1;\nexport function f() {}\nthe the end\n");
  const ahead = await ws.run(grepTool, { pattern: "export(?= const)" });
  assertEquals(ahead.output, "a.ts:1: export const a = 1;");
  const repeated = await ws.run(grepTool, { pattern: "\\b(\\w+) \\1\\b" });
  assertEquals(repeated.output, "a.ts:3: the the end");
  const broken = await ws.fail(grepTool, { pattern: "foo(" });
  assertEquals(broken.code, "invalid_pattern");
  assert(!broken.message.includes("--pcre2"), broken.message);
});
