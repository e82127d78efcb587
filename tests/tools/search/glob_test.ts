/**
 * glob: .gitignore honoured (nested files, negation, nested repositories),
 * `.git` never listed, newest first, a name pattern matching at any depth,
 * and the cap of 100 with a notice.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { globTool } from "../../../src/tools/search/glob.ts";
import { searchWorkspace, VISIBLE } from "../_search_tree.ts";
import { makeWorkspace } from "../_context.ts";

Deno.test("** lists exactly the files .gitignore leaves visible, never .git", async () => {
  await using ws = await searchWorkspace();
  const result = await ws.run(globTool, { pattern: "**/*" });
  assertEquals(result.output.split("\n").sort(), VISIBLE);
});

Deno.test("a pattern without a slash matches file names at any depth", async () => {
  await using ws = await searchWorkspace();
  const result = await ws.run(globTool, { pattern: "*.ts" });
  assertEquals(result.output.split("\n").sort(), [
    "pkg/lib/index.ts",
    "src/main.ts",
    "src/util/helpers.ts",
  ]);
  const logs = await ws.run(globTool, { pattern: "*.log" });
  assertEquals(logs.output.split("\n").sort(), ["pkg/keep.log", "vendor/repo/x.log"]);
});

Deno.test("a path narrows the search and results stay workspace-relative; parent rules still apply", async () => {
  await using ws = await searchWorkspace();
  const result = await ws.run(globTool, { pattern: "**/*", path: "src" });
  assertEquals(result.output.split("\n").sort(), [
    "src/main.ts",
    "src/secret.txt",
    "src/util/helpers.ts",
  ]);
  const prefixed = await ws.run(globTool, { pattern: "src/util/*" });
  assertEquals(prefixed.output, "src/util/helpers.ts");
});

Deno.test("results come newest first", async () => {
  await using ws = await makeWorkspace();
  for (const [name, age] of [["old.ts", 300], ["new.ts", 0], ["mid.ts", 100]] as const) {
    await ws.write(name, "x");
    const when = new Date(Date.now() - age * 60_000);
    await Deno.utime(ws.at(name), when, when);
  }
  const result = await ws.run(globTool, { pattern: "*.ts" });
  assertEquals(result.output, "new.ts\nmid.ts\nold.ts");
});

Deno.test("more than 100 matches: 100 shown and a notice with the rest", async () => {
  await using ws = await makeWorkspace();
  for (let i = 0; i < 130; i++) await ws.write(`many/f${i}.txt`, "x");
  const result = await ws.run(globTool, { pattern: "many/*.txt" });
  const lines = result.output.split("\n");
  assertEquals(lines.length, 101);
  assertStringIncludes(lines[100], "30 more files match; narrow the pattern");
  assertEquals(result.metadata?.count, 130);
  assertEquals(result.metadata?.truncated, true);
});

Deno.test("no match says so; a missing path is not_found", async () => {
  await using ws = await searchWorkspace();
  const none = await ws.run(globTool, { pattern: "**/*.rs" });
  assertStringIncludes(none.output, "No files match");
  const missing = await ws.fail(globTool, { pattern: "*", path: "nope" });
  assertEquals(missing.code, "not_found");
});

Deno.test("declare reports the glob key and the folder read", async () => {
  await using ws = await searchWorkspace();
  const access = await globTool.declare({ pattern: "*.ts", path: "src" }, ws.ctx);
  assertEquals(access.key, "glob");
  assertEquals(access.patterns, ["src"]);
  assertEquals(access.reads, [ws.at("src")]);
  assert(access.preview?.includes("*.ts"));
});

Deno.test("a workspace-relative pattern given with a path finds the files, and says how it read it", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/tools/a.ts", "");
  await ws.write("src/b.ts", "");
  for (const pattern of ["src/tools/*.ts", "./src/tools/*.ts"]) {
    const result = await ws.run(globTool, { pattern, path: "src" });
    assertEquals(
      result.output,
      'src/tools/a.ts\n(Read as "tools/*.ts" inside "src": patterns are relative to path.)',
    );
  }
  // A pattern that matches as given is taken as given.
  const plain = await ws.run(globTool, { pattern: "tools/*.ts", path: "src" });
  assertEquals(plain.output, "src/tools/a.ts");
});
