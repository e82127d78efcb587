/**
 * The symbol tool: definitions told from references per language (a table
 * of lines for each), the name taken literally, word boundaries, results
 * definitions first as `path:line: text`, the note on what a textual search
 * cannot see, grep's ignore and read rules, and identical output from the
 * ripgrep engine and the TypeScript fallback.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { createSymbolTool, SYMBOL_LIMITS } from "../../../src/tools/search/symbol.ts";
import { findRipgrep } from "../../../src/tools/search/_grep_rg.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

const hasRipgrep = findRipgrep() !== null;
if (!hasRipgrep) {
  console.warn("SKIPPED: ripgrep (rg) is not on PATH; the rg-vs-fallback symbol tests cannot run.");
}
const ripgrep = createSymbolTool({ engine: "ripgrep" });
const fallback = createSymbolTool({ engine: "fallback" });
const engines = hasRipgrep ? [ripgrep, fallback] : [fallback];

/** Runs every engine and checks they agree; answers the (one) output. */
async function symbol(ws: TestWorkspace, input: Record<string, unknown>): Promise<string> {
  const outputs = [];
  for (const engine of engines) outputs.push((await ws.run(engine, input)).output);
  for (const output of outputs.slice(1)) assertEquals(output, outputs[0], "engines differ");
  return outputs[0];
}

/** Per language: a file, the lines that define `target`, the lines that use it. */
const LANGUAGE_CASES: { file: string; defs: string[]; refs: string[] }[] = [
  {
    file: "a.ts",
    defs: [
      "export function target(x: number) {",
      "export default async function* target() {",
      "export class target {",
      "interface target {",
      "export type target = string;",
      "enum target { A }",
      "const target = 1;",
      "export let target: number;",
      "  async target(a: string): Promise<void> {",
      "  target = (x) => x + 1;",
      "  target: async function () {",
      "  private readonly target = new Map();",
    ],
    refs: [
      "const y = target(1);",
      'import { target } from "./b.ts";',
      "  return this.target;",
      "target(a, b);",
      "if (target) {",
    ],
  },
  {
    file: "m.py",
    defs: [
      "def target(x):",
      "    async def target(self):",
      "class target(Base):",
      "target = 3",
      "target: int = 3",
    ],
    refs: ["    return target(x)", "from m import target", "if target == 3:", "    target = 4"],
  },
  {
    file: "m.go",
    defs: [
      "func target(x int) int {",
      "func (s *Server) target() {",
      "type target struct {",
      "var target = 1",
      "const target = 2",
      "\ttarget int",
      "\ttarget, err := load()",
    ],
    refs: ["\treturn target(x)", "\tx := target + 1", "\tif target == nil {"],
  },
  {
    file: "m.rs",
    defs: [
      "pub fn target(x: i32) -> i32 {",
      "    pub(crate) async fn target() {",
      "struct target {",
      "pub enum target {",
      "trait target {",
      "macro_rules! target {",
      "    let mut target = 1;",
      "const target: u8 = 1;",
    ],
    refs: ["    target(1);", "use crate::target;", "    let x = target + 1;"],
  },
  {
    file: "M.java",
    defs: [
      "public class target {",
      "    public static int target(int x) {",
      "    target(String name) {",
      "    private final int target = 1;",
      "interface target {",
    ],
    refs: ["        return target(x);", "        int y = target(1);", "        new target();"],
  },
  {
    file: "m.kt",
    defs: [
      "fun target(x: Int): Int {",
      "    val target = 1",
      "data class target(val a: Int)",
      "object target {",
      "fun String.target() = 1",
    ],
    refs: ["    println(target(1))", "    x = target"],
  },
  {
    file: "m.c",
    defs: [
      "#define target 1",
      "static int target(int x) {",
      "struct target {",
      "typedef unsigned long target;",
      "target(int x)",
      "void Server::target(int x) {",
    ],
    refs: ["    return target(x);", "    int y = target(1);", "    if (target(1)) {"],
  },
  {
    file: "m.rb",
    defs: [
      "def target(x)",
      "  def self.target",
      "class target < Base",
      "module Foo::target",
      "target = 1",
      "  attr_reader :target",
    ],
    refs: ["  target(1)", "  x = target + 1", "  if target == 1"],
  },
  {
    file: "m.sh",
    defs: ["target() {", "function target {", "export target=1", "local target=2"],
    refs: ['  target "$@"', 'echo "$target"', "  x=$(target)"],
  },
];

for (const { file, defs, refs } of LANGUAGE_CASES) {
  Deno.test(`symbol tells definitions from references in ${file}`, async () => {
    await using ws = await makeWorkspace();
    await ws.write(file, [...defs, ...refs].join("\n") + "\n");
    const output = await symbol(ws, { name: "target" });
    const [defPart, refPart] = output.split("\n\nReferences to target");
    const defLines = defPart.split("\n").slice(1);
    const refLines = refPart.split(SYMBOL_LIMITS)[0].trim().split("\n").slice(1);
    assertEquals(
      defLines,
      defs.map((text, index) => `${file}:${index + 1}: ${text.trim()}`),
      "definitions",
    );
    assertEquals(
      refLines,
      refs.map((text, index) => `${file}:${defs.length + index + 1}: ${text.trim()}`),
      "references",
    );
  });
}

Deno.test("symbol: definitions first, each as path:line: text, and the note on what it cannot see", async () => {
  await using ws = await makeWorkspace();
  await ws.write("b.ts", 'import { load } from "./a.ts";\nload();\n');
  await ws.write("a.ts", "export function load() {}\n");
  const output = await symbol(ws, { name: "load" });
  assertEquals(
    output,
    "Definitions of load (1):\na.ts:1: export function load() {}\n\n" +
      'References to load (2):\nb.ts:1: import { load } from "./a.ts";\nb.ts:2: load();\n\n' +
      SYMBOL_LIMITS,
  );
  assertStringIncludes(SYMBOL_LIMITS, "word boundaries");
  assertStringIncludes(SYMBOL_LIMITS, "dynamic dispatch");
  assertStringIncludes(SYMBOL_LIMITS, "aliases");
});

Deno.test("symbol kind=def and kind=ref show one side; definitions never count as references", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.py", "def go():\n    pass\ngo()\n");
  const defs = await symbol(ws, { name: "go", kind: "def" });
  assert(defs.startsWith("Definitions of go (1):\na.py:1: def go():\n\n["), defs);
  const refs = await symbol(ws, { name: "go", kind: "ref" });
  assert(refs.startsWith("References to go (1):\na.py:3: go()\n\n["), refs);
});

Deno.test("symbol matches on word boundaries only", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.ts", "load();\nreload();\nloader();\nload_all();\nx.load;\n");
  const output = await symbol(ws, { name: "load", kind: "ref" });
  assertStringIncludes(output, "References to load (2):\na.ts:1: load();\na.ts:5: x.load;");
});

Deno.test("symbol takes the name literally: regex characters are escaped, never interpreted", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.rb", "def empty?\nempty?\nemptyX\nempty\n");
  const output = await symbol(ws, { name: "empty?" });
  assertStringIncludes(output, "Definitions of empty? (1):\na.rb:1: def empty?");
  assertStringIncludes(output, "References to empty? (1):\na.rb:2: empty?\n");
  await ws.write("b.ts", "a.b\naxb\n");
  const dotted = await symbol(ws, { name: "a.b", path: "b.ts" });
  assertStringIncludes(dotted, "References to a.b (1):\nb.ts:1: a.b\n");
  const star = await symbol(ws, { name: ".*" });
  assertStringIncludes(star, "No line naming .* in");
});

Deno.test("symbol refuses a name with whitespace, saying what to do", async () => {
  await using ws = await makeWorkspace();
  for (const name of ["two words", "line\nbreak", "tab\there"]) {
    const error = await ws.fail(fallback, { name });
    assertEquals(error.code, "bad_input");
    assertStringIncludes(error.message, "holds whitespace");
    assertStringIncludes(error.hint ?? "", "use grep");
  }
});

Deno.test("symbol follows grep's ignore rules, path and glob", async () => {
  await using ws = await makeWorkspace();
  await ws.write(".gitignore", "build/\n");
  await ws.write("build/out.js", "function thing() {}\n");
  await ws.write("src/a.go", "func thing() {}\n");
  await ws.write("src/b.py", "thing()\n");
  await ws.write("lib/c.py", "thing()\n");
  const all = await symbol(ws, { name: "thing" });
  assert(!all.includes("build/"), all);
  assertStringIncludes(all, "src/a.go:1: func thing() {}");
  const narrowed = await symbol(ws, { name: "thing", path: "src", glob: "*.py" });
  assertStringIncludes(narrowed, "Definitions of thing (0):");
  assertStringIncludes(narrowed, "References to thing (1):\nsrc/b.py:1: thing()");
});

Deno.test("symbol leaves out files the read rules keep back, and says so", async () => {
  await using ws = await makeWorkspace();
  await ws.write(".env", "SECRET_TOKEN=abc\n");
  await ws.write("a.sh", 'echo "$SECRET_TOKEN"\n');
  ws.ctx.readVerdict = (_real, display) =>
    display.endsWith(".env")
      ? { action: "ask", reason: "read(.env): ask by default rule *.env", pattern: "*.env" }
      : { action: "allow", reason: "read: allow" };
  const output = await symbol(ws, { name: "SECRET_TOKEN" });
  assert(!output.includes("abc"), output);
  assertStringIncludes(output, "a.sh:1:");
  assertStringIncludes(output, "1 file was not searched");
});

Deno.test("symbol on a large generated tree gives identical output in both engines", {
  ignore: !hasRipgrep,
}, async () => {
  await using ws = await makeWorkspace();
  for (let index = 0; index < 60; index++) {
    await ws.write(
      `pkg${index % 6}/m${index}.ts`,
      `export function helper${index}() {}\nconst v = helper${index % 7}();\n// helper\n`,
    );
  }
  const outputs = await Promise.all(
    [ripgrep, fallback].map((tool) => ws.run(tool, { name: "helper3" })),
  );
  assertEquals(outputs[0].output, outputs[1].output);
  assertEquals(outputs[0].metadata?.engine, "ripgrep");
  assertEquals(outputs[1].metadata?.engine, "fallback");
  assertEquals(outputs[0].metadata?.definitions, 1);
});

Deno.test("symbol is judged as grep is: the grep key on the searched root", async () => {
  await using ws = await makeWorkspace();
  await Deno.mkdir(ws.at("src"));
  const access = await fallback.declare({ name: "x", path: "src" }, ws.ctx);
  assertEquals([access.key, access.patterns, access.reads], ["grep", ["src"], [ws.at("src")]]);
});
