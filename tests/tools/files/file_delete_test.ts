/**
 * The file_delete tool: a file removed through the change set (snapshot
 * first, so undo has its bytes and mode), a symbolic link removed itself and
 * never its target, its own `delete` key, and its table of refusals.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { fileDeleteTool } from "../../../src/tools/files/file_delete.ts";
import { undoSnapshots } from "../../../src/undo/undo.ts";
import { FileLedger, hashContent } from "../../../src/tools/files/file_ledger.ts";
import type { ToolErrorCode } from "../../../src/tools/tool.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";
import { changedFiles } from "../../../src/engine/context/changed_files.ts";
import type { ChatMessage } from "../../../src/provider/types.ts";

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

Deno.test("file_delete removes a file with no read first, and keeps its bytes for undo", async () => {
  await using ws = await makeWorkspace();
  await ws.write("src/old.ts", "export const x = 1;\n");
  const result = await ws.run(fileDeleteTool, { file_path: "src/old.ts" });
  assertEquals(result.output, "Deleted src/old.ts.");
  assert(!(await exists(ws.at("src/old.ts"))));
  assertEquals(ws.snapshots.map((s) => [s.path, s.before]), [
    [ws.at("src/old.ts"), "export const x = 1;\n"],
  ]);
});

Deno.test("file_delete then undo brings the file back with its mode", async () => {
  await using ws = await makeWorkspace();
  const saved: { path: string; content: Uint8Array | null; mode: number | null }[] = [];
  // The store's sink records the mode as the engine's does (src/engine/opened_session.ts).
  ws.ctx.files = new FileLedger({
    save: (_prompt, file, before) => {
      saved.push({ path: file, content: before, mode: Deno.statSync(file).mode! & 0o7777 });
    },
  });
  await ws.write("run.sh", "#!/bin/sh\necho hi\n");
  await Deno.chmod(ws.at("run.sh"), 0o754);
  await ws.run(fileDeleteTool, { file_path: "run.sh" });
  assert(!(await exists(ws.at("run.sh"))));
  const report = await undoSnapshots(saved, new Map(), { roots: [ws.root] });
  assertEquals(report.restored, [ws.at("run.sh")]);
  assertEquals(await ws.readText("run.sh"), "#!/bin/sh\necho hi\n");
  assertEquals((await Deno.stat(ws.at("run.sh"))).mode! & 0o777, 0o754);
  assertEquals(
    saved[0].content && hashContent(saved[0].content),
    hashContent("#!/bin/sh\necho hi\n"),
  );
});

Deno.test("file_delete of a symbolic link removes the link and keeps the file it points to", async () => {
  await using ws = await makeWorkspace();
  await ws.write("target.txt", "keep me\n");
  await Deno.symlink("target.txt", ws.at("link.txt"));
  const result = await ws.run(fileDeleteTool, { file_path: "link.txt" });
  assertStringIncludes(result.output, "the symbolic link link.txt (to target.txt)");
  assert(!(await exists(ws.at("link.txt"))));
  assertEquals(await ws.readText("target.txt"), "keep me\n");
  // Undo keeps the link's text, not its target's bytes.
  assertEquals(ws.snapshots.map((s) => [s.path, s.before]), [[ws.at("link.txt"), "target.txt"]]);
});

Deno.test("file_delete of a dangling symbolic link removes the link", async () => {
  await using ws = await makeWorkspace();
  await Deno.symlink("gone.txt", ws.at("dangling"));
  await ws.run(fileDeleteTool, { file_path: "dangling" });
  assert(!(await exists(ws.at("dangling"))));
});

Deno.test("file_delete declares the delete key on the file, and on a link and its folder", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "a\n");
  const plain = await fileDeleteTool.declare({ file_path: "a.txt" }, ws.ctx);
  assertEquals([plain.key, plain.patterns, plain.writes], ["delete", ["a.txt"], [ws.at("a.txt")]]);
  await ws.write("dir/target.txt", "t\n");
  await Deno.symlink("target.txt", ws.at("dir/link"));
  const link = await fileDeleteTool.declare({ file_path: "dir/link" }, ws.ctx);
  assertEquals(link.patterns, ["dir/link"]);
  assertEquals(link.writes, [ws.at("dir/link"), ws.at("dir")]);
  assert(!link.writes!.includes(ws.at("dir/target.txt")), "the target is not declared");
});

interface Refusal {
  name: string;
  setup: (ws: TestWorkspace) => Promise<void>;
  file_path: string;
  code: ToolErrorCode;
  says: string;
}

const refusals: Refusal[] = [
  {
    name: "a folder",
    setup: async (ws) => void await ws.write("dir/a.txt", "a\n"),
    file_path: "dir",
    code: "bad_input",
    says: "dir is a folder",
  },
  {
    name: "a missing file",
    setup: () => Promise.resolve(),
    file_path: "nope.txt",
    code: "not_found",
    says: "nope.txt does not exist",
  },
  {
    name: "an empty path",
    setup: () => Promise.resolve(),
    file_path: "",
    code: "bad_input",
    says: "file_path is empty",
  },
];

for (const refusal of refusals) {
  Deno.test(`file_delete refuses ${refusal.name} and deletes nothing`, async () => {
    await using ws = await makeWorkspace();
    await refusal.setup(ws);
    const error = await ws.fail(fileDeleteTool, { file_path: refusal.file_path });
    assertEquals(error.code, refusal.code, error.message);
    assertStringIncludes(error.message, refusal.says);
    assertEquals(ws.snapshots.length, 0);
    if (refusal.name === "a folder") assertEquals(await ws.readText("dir/a.txt"), "a\n");
  });
}

Deno.test("file_delete refuses a hidden path before any rule is asked", async () => {
  await using ws = await makeWorkspace();
  await ws.write("secret/key", "k\n");
  ws.ctx.hidden = [ws.at("secret")];
  const error = await ws.fail(fileDeleteTool, { file_path: "secret/key" });
  assertEquals(error.code, "denied");
  assertEquals(await ws.readText("secret/key"), "k\n");
});

Deno.test("a compaction's list of changed files names deleted files and copies, as it names edits", () => {
  const call = (name: string, args: Record<string, string>) => ({
    id: name,
    name,
    arguments: JSON.stringify(args),
  });
  const messages: ChatMessage[] = [{
    role: "assistant",
    content: "",
    tool_calls: [
      call("file_delete", { file_path: "old.ts" }),
      call("file_copy", { source: "a.png", destination: "public/a.png" }),
    ],
  }];
  assertEquals(changedFiles(messages), ["old.ts", "public/a.png"]);
});
