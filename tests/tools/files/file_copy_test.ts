/**
 * The file_copy tool: bytes and mode copied from disk (a binary asset never
 * passes through the output), the destination written through the change
 * set (snapshots for undo, the read ledger), the read-before-write rule for
 * an existing destination only, the source judged as a read, and its table
 * of refusals.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { fileCopyTool } from "../../../src/tools/files/file_copy.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import type { Access, ToolErrorCode } from "../../../src/tools/tool.ts";
import { ToolError } from "../../../src/tools/tool.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

const PNG = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13, 0xff, 0]);

/** A workspace whose gate allows every mid-call read, recording what it was asked. */
async function copyWorkspace(): Promise<TestWorkspace & { asked: Access[] }> {
  const ws = await makeWorkspace();
  const asked: Access[] = [];
  ws.ctx.authorize = (access) => {
    asked.push(access);
    return Promise.resolve();
  };
  return Object.assign(ws, { asked });
}

Deno.test("file_copy copies a binary file byte for byte with its mode; the output holds no content", async () => {
  await using ws = await copyWorkspace();
  await ws.write("assets/logo.png", PNG);
  await Deno.chmod(ws.at("assets/logo.png"), 0o751);
  const result = await ws.run(fileCopyTool, {
    source: "assets/logo.png",
    destination: "public/img/logo.png",
  });
  assertEquals(await Deno.readFile(ws.at("public/img/logo.png")), PNG);
  assertEquals((await Deno.stat(ws.at("public/img/logo.png"))).mode! & 0o777, 0o751);
  assertEquals(
    result.output,
    "Copied assets/logo.png to public/img/logo.png (14 bytes).",
  );
  assertEquals(result.metadata?.binary, true);
  // Undo knows the destination did not exist; the source was judged as a read.
  assertEquals(ws.snapshots.map((s) => [s.path, s.before]), [[ws.at("public/img/logo.png"), null]]);
  assertEquals(ws.asked.map((a) => [a.key, a.patterns]), [["read", ["assets/logo.png"]]]);
});

Deno.test("file_copy of a text file needs no read first, and the copy can be edited at once", async () => {
  await using ws = await copyWorkspace();
  await ws.write("a.txt", "one\ntwo\n");
  await ws.run(fileCopyTool, { source: "a.txt", destination: "b.txt" });
  assertEquals(await ws.readText("b.txt"), "one\ntwo\n");
  // Written by skiff: the model's view of the copy is current.
  await ws.run(editTool, { file_path: "b.txt", old_string: "two", new_string: "2" });
  assertEquals(await ws.readText("b.txt"), "one\n2\n");
  assertEquals(await ws.readText("a.txt"), "one\ntwo\n");
});

Deno.test("file_copy over an existing file needs it read and unchanged, then snapshots it", async () => {
  await using ws = await copyWorkspace();
  await ws.write("new.txt", "new\n");
  await ws.write("old.txt", "precious\n");
  const error = await ws.fail(fileCopyTool, { source: "new.txt", destination: "old.txt" });
  assertEquals(error.code, "file_not_read");
  assertEquals(await ws.readText("old.txt"), "precious\n");
  await ws.run(readTool, { file_path: "old.txt" });
  const result = await ws.run(fileCopyTool, { source: "new.txt", destination: "old.txt" });
  assertStringIncludes(result.output, "replacing the file there");
  assertEquals(await ws.readText("old.txt"), "new\n");
  assertEquals(ws.snapshots.map((s) => s.before), ["precious\n"]);
});

Deno.test("file_copy refuses the source when the read rules do", async () => {
  await using ws = await makeWorkspace();
  await ws.write(".env", "TOKEN=1\n");
  ws.ctx.authorize = () =>
    Promise.reject(new ToolError("denied", "read(.env): denied", "ask the user"));
  const error = await ws.fail(fileCopyTool, { source: ".env", destination: "env.txt" });
  assertEquals(error.code, "denied");
  assert(!(await Deno.lstat(ws.at("env.txt")).then(() => true, () => false)));
});

Deno.test("file_copy without a gate to ask copies only what the read rules allow outright", async () => {
  await using ws = await makeWorkspace();
  await ws.write("a.txt", "a\n");
  assertEquals(
    (await ws.fail(fileCopyTool, { source: "a.txt", destination: "b.txt" })).code,
    "denied",
  );
  ws.ctx.readVerdict = () => ({ action: "allow", reason: "read: default allow" });
  await ws.run(fileCopyTool, { source: "a.txt", destination: "b.txt" });
  assertEquals(await ws.readText("b.txt"), "a\n");
});

Deno.test("file_copy follows a source link and copies the file it leads to", async () => {
  await using ws = await copyWorkspace();
  await ws.write("real.txt", "real\n");
  await Deno.symlink("real.txt", ws.at("alias.txt"));
  await ws.run(fileCopyTool, { source: "alias.txt", destination: "copy.txt" });
  assertEquals(await ws.readText("copy.txt"), "real\n");
  assert(!(await Deno.lstat(ws.at("copy.txt"))).isSymlink, "the copy is a file, not a link");
  // What was judged is the file the link leads to.
  assertEquals(ws.asked[0].patterns, ["real.txt"]);
});

interface Refusal {
  name: string;
  setup: (ws: TestWorkspace) => Promise<void>;
  input: { source: string; destination: string };
  code: ToolErrorCode;
  says: string;
}

const refusals: Refusal[] = [
  {
    name: "a folder as source",
    setup: async (ws) => void await ws.write("dir/a.txt", "a\n"),
    input: { source: "dir", destination: "dir2" },
    code: "bad_input",
    says: "dir is a folder",
  },
  {
    name: "a missing source",
    setup: () => Promise.resolve(),
    input: { source: "nope.txt", destination: "b.txt" },
    code: "not_found",
    says: "nope.txt does not exist",
  },
  {
    name: "a folder as destination",
    setup: async (ws) => {
      await ws.write("a.txt", "a\n");
      await Deno.mkdir(ws.at("out"));
    },
    input: { source: "a.txt", destination: "out" },
    code: "bad_input",
    says: "out is a folder",
  },
  {
    name: "the same file",
    setup: async (ws) => void await ws.write("a.txt", "a\n"),
    input: { source: "a.txt", destination: "./a.txt" },
    code: "bad_input",
    says: "the same file",
  },
  {
    name: "a destination that is a symbolic link",
    setup: async (ws) => {
      await ws.write("a.txt", "a\n");
      await ws.write("target.txt", "t\n");
      await Deno.symlink("target.txt", ws.at("link.txt"));
    },
    input: { source: "a.txt", destination: "link.txt" },
    code: "bad_input",
    says: "does not write through a link",
  },
  {
    name: "an empty source path",
    setup: () => Promise.resolve(),
    input: { source: " ", destination: "b.txt" },
    code: "bad_input",
    says: "file_path is empty",
  },
];

for (const refusal of refusals) {
  Deno.test(`file_copy refuses ${refusal.name} and changes nothing`, async () => {
    await using ws = await copyWorkspace();
    await refusal.setup(ws);
    const before = [...Deno.readDirSync(ws.root)].map((e) => e.name).sort();
    const error = await ws.fail(fileCopyTool, refusal.input);
    assertEquals(error.code, refusal.code, error.message);
    assertStringIncludes(error.message, refusal.says);
    assertEquals([...Deno.readDirSync(ws.root)].map((e) => e.name).sort(), before);
    assertEquals(ws.snapshots.length, 0);
    if (refusal.name.includes("link")) assertEquals(await ws.readText("target.txt"), "t\n");
  });
}

Deno.test("file_copy declares the destination as an edit and the source as a read", async () => {
  await using ws = await copyWorkspace();
  await ws.write("a.txt", "a\n");
  const access = await fileCopyTool.declare({ source: "a.txt", destination: "b/c.txt" }, ws.ctx);
  assertEquals(access.key, "edit");
  assertEquals(access.patterns, ["b/c.txt"]);
  assertEquals(access.writes, [ws.at("b/c.txt")]);
  assertEquals(new Set(access.reads), new Set([ws.at("a.txt"), ws.at("b/c.txt")]));
});
