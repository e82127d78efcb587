/**
 * The change set under every file tool: a plan checks before anything is
 * written, the preview writes nothing, and a commit that fails midway puts
 * back what it already wrote (content, mode, created files removed). Locks
 * are taken in sorted order, so change sets naming the same files in
 * opposite orders never wait on each other forever.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import {
  type ChangeSet,
  commitChangeSet,
  type FileChange,
  planChangeSet,
  previewChangeSet,
  withFileLocks,
} from "../../../src/tools/files/mod.ts";
import { diskWriter, type FileWriter } from "../../../src/tools/files/_file_io.ts";
import { resolveToolPath } from "../../../src/tools/tool_paths.ts";
import { ToolError } from "../../../src/tools/tool.ts";
import { makeWorkspace, type TestWorkspace } from "../_context.ts";

const bytes = (text: string) => new TextEncoder().encode(text);

async function exists(file: string): Promise<boolean> {
  try {
    await Deno.lstat(file);
    return true;
  } catch {
    return false;
  }
}

/** A file that exists, read by the model (so the ledger lets it be changed). */
async function readFile(ws: TestWorkspace, relative: string, text: string, mode = 0o644) {
  await ws.write(relative, text);
  await Deno.chmod(ws.at(relative), mode);
  ws.ctx.files.markRead(ws.at(relative), bytes(text));
}

function update(ws: TestWorkspace, relative: string, before: string, after: string): FileChange {
  return {
    target: resolveToolPath(ws.ctx, relative),
    before: bytes(before),
    after: bytes(after),
    beforeText: before,
    afterText: after,
  };
}

function create(ws: TestWorkspace, relative: string, after: string): FileChange {
  return {
    target: resolveToolPath(ws.ctx, relative),
    before: null,
    after: bytes(after),
    beforeText: null,
    afterText: after,
  };
}

async function commitFails(ws: TestWorkspace, set: ChangeSet, io?: FileWriter) {
  try {
    await commitChangeSet(ws.ctx, set, { io });
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected the commit to fail");
}

Deno.test("change set: a path swapped for a folder after the plan rolls back the files before it", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "a.txt", "a1\n", 0o750);
  await readFile(ws, "b.txt", "b1\n");
  const set = planChangeSet(ws.ctx, [
    update(ws, "a.txt", "a1\n", "a2\n"),
    create(ws, "new/c.txt", "c\n"),
    update(ws, "b.txt", "b1\n", "b2\n"),
  ]);
  // Between plan and commit, b.txt becomes a folder.
  await Deno.remove(ws.at("b.txt"));
  await Deno.mkdir(ws.at("b.txt"));
  const error = await commitFails(ws, set);
  assertEquals(error.code, "failed");
  assertStringIncludes(error.message, "Writing b.txt failed");
  assertStringIncludes(error.message, "no file was changed");
  assertEquals(await ws.readText("a.txt"), "a1\n");
  assertEquals((await Deno.stat(ws.at("a.txt"))).mode! & 0o777, 0o750);
  assert(!(await exists(ws.at("new/c.txt"))), "the created file was removed again");
  assert((await Deno.stat(ws.at("b.txt"))).isDirectory, "the folder was left alone");
  // The ledger did not learn the content that was rolled back.
  ws.ctx.files.assertEditable(ws.at("a.txt"), bytes("a1\n"));
});

Deno.test("change set: a write failing midway restores the files before it, content and mode", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "run.sh", "#!/bin/sh\necho 1\n", 0o755);
  await readFile(ws, "two.txt", "2\n");
  let writes = 0;
  const failing: FileWriter = {
    async write(file, content, mode) {
      if (++writes === 3) throw new Error("disk full");
      await diskWriter.write(file, content, mode);
      // The failed set leaves this file changed in mode too: the rollback must put it back.
      if (writes === 1) await Deno.chmod(file, 0o600);
    },
    remove: diskWriter.remove,
  };
  const set = planChangeSet(ws.ctx, [
    update(ws, "run.sh", "#!/bin/sh\necho 1\n", "#!/bin/sh\necho 2\n"),
    create(ws, "made.txt", "m\n"),
    update(ws, "two.txt", "2\n", "two\n"),
  ]);
  const error = await commitFails(ws, set, failing);
  assertStringIncludes(error.message, "Writing two.txt failed (disk full)");
  assertEquals(await ws.readText("run.sh"), "#!/bin/sh\necho 1\n");
  assertEquals((await Deno.stat(ws.at("run.sh"))).mode! & 0o777, 0o755);
  assertEquals(await ws.readText("two.txt"), "2\n");
  assert(!(await exists(ws.at("made.txt"))), "the created file was removed again");
});

Deno.test("change set: a removal that fails after the writes puts the written files back", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "keep.txt", "k1\n");
  await readFile(ws, "gone.txt", "g\n");
  const failing: FileWriter = {
    write: diskWriter.write,
    remove: () => Promise.reject(new Error("device busy")),
  };
  const removal: FileChange = {
    target: resolveToolPath(ws.ctx, "gone.txt"),
    before: bytes("g\n"),
    after: null,
    beforeText: "g\n",
    afterText: null,
  };
  // Listed first, the removal still runs after the write.
  const set = planChangeSet(ws.ctx, [removal, update(ws, "keep.txt", "k1\n", "k2\n")]);
  const error = await commitFails(ws, set, failing);
  assertStringIncludes(error.message, "Writing gone.txt failed (device busy)");
  assertEquals(await ws.readText("keep.txt"), "k1\n");
  assertEquals(await ws.readText("gone.txt"), "g\n");
});

Deno.test("change set: a file changed on disk after the plan is not overwritten", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "f.txt", "v1\n");
  const set = planChangeSet(ws.ctx, [update(ws, "f.txt", "v1\n", "v2\n")]);
  await ws.write("f.txt", "the user's edit\n");
  const error = await commitFails(ws, set);
  assertStringIncludes(error.message, "f.txt changed on disk");
  assertEquals(await ws.readText("f.txt"), "the user's edit\n");
  assertEquals(ws.snapshots, [], "nothing was kept for undo: nothing was written");
});

Deno.test("change set: the plan refuses a file not read, and one named twice, before any write", async () => {
  await using ws = await makeWorkspace();
  await ws.write("unread.txt", "u\n");
  await readFile(ws, "read.txt", "r\n");
  let error: unknown;
  try {
    planChangeSet(ws.ctx, [
      update(ws, "read.txt", "r\n", "r2\n"),
      update(ws, "unread.txt", "u\n", "u2\n"),
    ]);
  } catch (caught) {
    error = caught;
  }
  assert(error instanceof ToolError);
  assertEquals(error.code, "file_not_read");
  try {
    planChangeSet(ws.ctx, [create(ws, "n.txt", "1\n"), create(ws, "./n.txt", "2\n")]);
    error = undefined;
  } catch (caught) {
    error = caught;
  }
  assert(error instanceof ToolError);
  assertStringIncludes(error.message, "n.txt is changed twice");
  assertEquals(await ws.readText("read.txt"), "r\n");
  assert(!(await exists(ws.at("n.txt"))));
});

Deno.test("change set: the preview diffs every change and writes nothing", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "a.txt", "one\ntwo\n");
  const set = planChangeSet(ws.ctx, [
    update(ws, "a.txt", "one\ntwo\n", "one\n2\n"),
    create(ws, "b.txt", "new\n"),
  ]);
  const [a, b] = previewChangeSet(set);
  assertStringIncludes(a.diff, "-two\n+2\n");
  assertEquals([a.additions, a.deletions], [1, 1]);
  assertStringIncludes(b.diff, "--- /dev/null\n+++ b/b.txt");
  assertEquals(await ws.readText("a.txt"), "one\ntwo\n");
  assert(!(await exists(ws.at("b.txt"))));
});

Deno.test("change set: two sets over the same two files in opposite orders both finish", async () => {
  await using ws = await makeWorkspace();
  await readFile(ws, "x.txt", "");
  await readFile(ws, "y.txt", "");
  const appendTo = (order: string[], line: string) =>
    withFileLocks(ws.ctx.files, order.map((name) => ws.at(name)), async () => {
      const changes: FileChange[] = [];
      for (const name of order) {
        const before = await ws.readText(name);
        // Give the other set time to take a lock, as an unordered one would.
        await new Promise((resolve) => setTimeout(resolve, 20));
        changes.push(update(ws, name, before, before + line));
      }
      await commitChangeSet(ws.ctx, planChangeSet(ws.ctx, changes));
    });
  let timer: ReturnType<typeof setTimeout> | undefined;
  const stuck = new Promise<string>((resolve) => {
    timer = setTimeout(() => resolve("deadlocked"), 5000);
  });
  const outcome = await Promise.race([
    Promise.all([appendTo(["x.txt", "y.txt"], "1\n"), appendTo(["y.txt", "x.txt"], "2\n")])
      .then(() => "finished"),
    stuck,
  ]);
  clearTimeout(timer);
  assertEquals(outcome, "finished");
  // One ran after the other: each saw the other's line.
  assertEquals(await ws.readText("x.txt"), "1\n2\n");
  assertEquals(await ws.readText("y.txt"), "1\n2\n");
});
