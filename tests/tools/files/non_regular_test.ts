/**
 * A pipe (FIFO) where a file tool expects a file: every tool that opens a
 * path (read, write, edit, apply_patch, file_copy's source and destination)
 * refuses it at once instead of waiting forever for a writer, and the call
 * after it works. The control shows that opening the pipe does wait.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { applyPatchTool } from "../../../src/tools/files/apply_patch.ts";
import { editTool } from "../../../src/tools/files/edit.ts";
import { fileCopyTool } from "../../../src/tools/files/file_copy.ts";
import { readTool } from "../../../src/tools/files/read.ts";
import { writeTool } from "../../../src/tools/files/write.ts";
import type { Tool } from "../../../src/tools/tool.ts";
import { makeWorkspace } from "../_context.ts";

const hasMkfifo = (() => {
  try {
    return new Deno.Command("mkfifo", { args: ["--version"], stdout: "null", stderr: "null" })
      .outputSync().success;
  } catch {
    return false;
  }
})();
if (!hasMkfifo) console.warn("SKIPPED: mkfifo is not on PATH; the pipe tests cannot run.");

async function mkfifo(file: string): Promise<void> {
  const made = await new Deno.Command("mkfifo", { args: [file] }).output();
  assert(made.success, `mkfifo ${file} failed`);
}

/** `work` settled within `ms`, or a failure naming what hung. */
async function within<T>(ms: number, what: string, work: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what} did not return within ${ms} ms`)), ms);
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
  }
}

Deno.test({
  name: "every file tool refuses a pipe before opening it, and the session's next call works",
  ignore: !hasMkfifo,
  async fn() {
    await using ws = await makeWorkspace();
    // file_copy puts its source to the gate; here every read is allowed.
    ws.ctx.authorize = () => Promise.resolve();
    await mkfifo(ws.at("pipe"));
    await ws.write("real.txt", "real\n");
    const calls: [Tool<never>, Record<string, unknown>][] = [
      [readTool as Tool<never>, { file_path: "pipe" }],
      [writeTool as Tool<never>, { file_path: "pipe", content: "x\n" }],
      [editTool as Tool<never>, { file_path: "pipe", old_string: "a", new_string: "b" }],
      [applyPatchTool as Tool<never>, {
        patch: ["*** Begin Patch", "*** Update File: pipe", "@@", "-a", "+b", "*** End Patch"]
          .join("\n"),
      }],
      [fileCopyTool as Tool<never>, { source: "pipe", destination: "copy.txt" }],
      [fileCopyTool as Tool<never>, { source: "real.txt", destination: "pipe" }],
    ];
    for (const [tool, input] of calls) {
      const error = await within(
        3_000,
        `${tool.name} ${JSON.stringify(input)}`,
        ws.fail(tool, input),
      );
      assertStringIncludes(error.message, "not a regular file", `${tool.name}: ${error.message}`);
    }
    const read = await ws.run(readTool, { file_path: "real.txt" });
    assertStringIncludes(read.output, "real");
  },
});

Deno.test({
  name: "control: opening the pipe to read it waits until a writer comes",
  ignore: !hasMkfifo,
  async fn() {
    await using ws = await makeWorkspace();
    await mkfifo(ws.at("pipe"));
    const reading = Deno.readFile(ws.at("pipe"));
    const outcome = await Promise.race([
      reading.then(() => "read"),
      new Promise((resolve) => setTimeout(() => resolve("still waiting"), 500)),
    ]);
    assertEquals(outcome, "still waiting");
    // Let the read end: a writer opens and closes the pipe.
    (await Deno.open(ws.at("pipe"), { write: true })).close();
    assertEquals((await reading).length, 0);
  },
});
