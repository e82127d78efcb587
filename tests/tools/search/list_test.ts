/**
 * list: an indented tree with .gitignore honoured, single-folder chains
 * collapsed to one line, depth limits shown as entry counts, and the entry
 * cap reached breadth-first with a notice.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { listTool } from "../../../src/tools/search/list.ts";
import { makeWorkspace } from "../_context.ts";
import { searchWorkspace } from "../_search_tree.ts";

Deno.test("the tree leaves out ignored files and .git, folders first", async () => {
  await using ws = await searchWorkspace();
  const result = await ws.run(listTool, { depth: 5 });
  assertEquals(
    result.output,
    [
      "./",
      "  .github/workflows/",
      "    ci.yml",
      "  bin/",
      "    data.bin",
      "  pkg/",
      "    lib/",
      "      index.ts",
      "    .gitignore",
      "    keep.log",
      "  src/",
      "    util/",
      "      helpers.ts",
      "    main.ts",
      "    secret.txt",
      "  vendor/repo/",
      "    .gitignore",
      "    x.log",
      "  .gitignore",
      "  README.md",
    ].join("\n"),
  );
});

Deno.test("a chain of single-folder folders collapses to its first branch point, as one level", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/main/java/org/demo/App.java", "");
  await ws.write("src/main/java/org/demo/util/Strings.java", "");
  await ws.write("src/main/java/org/other/Other.java", "");
  const result = await ws.run(listTool, { path: "src" });
  assertEquals(
    result.output,
    [
      "src/",
      "  main/java/org/",
      "    demo/",
      "      util/ (1 entry)",
      "      App.java",
      "    other/",
      "      Other.java",
    ].join("\n"),
  );
});

Deno.test("folders beyond depth show how many entries they hold", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a/one.txt", "");
  await ws.write("a/two.txt", "");
  await ws.write("a/b/three.txt", "");
  await ws.write("top.txt", "");
  const result = await ws.run(listTool, { depth: 1 });
  assertEquals(result.output, "./\n  a/ (3 entries)\n  top.txt");
});

Deno.test("past the entry cap the top stays complete and a notice says what to do", async () => {
  await using ws = await makeWorkspace();
  for (let i = 0; i < 5; i++) await ws.write(`small${i}/file.txt`, "");
  for (let i = 0; i < 450; i++) await ws.write(`huge/f${String(i).padStart(3, "0")}.txt`, "");
  const result = await ws.run(listTool, {});
  assertStringIncludes(result.output, "  huge/ (450 entries)\n");
  assertStringIncludes(result.output, "  small4/\n    file.txt");
  assertStringIncludes(result.output, "[Listing stopped at 400 entries");
  assertEquals(result.metadata?.truncated, true);
});

Deno.test("a file or a missing path is refused with a hint", async () => {
  await using ws = await searchWorkspace();
  const file = await ws.fail(listTool, { path: "README.md" });
  assertEquals(file.code, "bad_input");
  const missing = await ws.fail(listTool, { path: "nope" });
  assertEquals(missing.code, "not_found");
  assert(missing.hint);
});

Deno.test("symbolic links are listed with their target (if inside) and never followed", async () => {
  await using ws = await makeWorkspace();
  await ws.write("releases/v2/app.js", "x\n");
  await ws.write("notes.txt", "n\n");
  await Deno.symlink("releases/v2", ws.at("current"));
  await Deno.symlink("/nonexistent/secret.txt", ws.at("dangling"));
  await Deno.symlink("notes.txt", ws.at("releases/readme"));
  const { output } = await ws.run(listTool, {});
  assertEquals(
    output,
    [
      "./",
      "  releases/",
      "    v2/",
      "      app.js",
      "    readme -> notes.txt",
      "  current -> releases/v2",
      // A target outside the workspace is not named.
      "  dangling -> (outside the workspace)",
      "  notes.txt",
    ].join("\n"),
  );
});
