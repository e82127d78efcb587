/**
 * Background commands: bash returns an id at once, the process tool reads
 * new output (optionally waiting for the exit) and stops the whole group,
 * and stopAll at session end leaves nothing running.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { BackgroundProcesses } from "../../../src/tools/process/background.ts";
import { bashTool } from "../../../src/tools/process/bash.ts";
import { processTool } from "../../../src/tools/process/process.ts";
import { plainLauncher, processWorkspace, survivors, uniqueSleep } from "../_processes.ts";

Deno.test("background start returns an id at once; output, then stop kills the group", async () => {
  await using ws = await processWorkspace();
  const marker = uniqueSleep();
  const started = Date.now();
  const result = await ws.run(bashTool, {
    command: `echo ready; sleep ${marker} & sleep ${marker}`,
    background: true,
  });
  assert(Date.now() - started < 2_000, "background start waited for the command");
  const id = String(result.metadata?.id);
  assertStringIncludes(result.output, id);

  const first = await ws.run(processTool, { id, action: "output", wait_ms: 300 });
  assertEquals(first.output, `ready\n[${id} still running]`);
  assertEquals(first.metadata?.running, true);
  assert((await survivors(marker)).length > 0, "the background group should be running");

  const again = await ws.run(processTool, { id, action: "output" });
  assertEquals(again.output, `(no new output)\n[${id} still running]`);

  const stopped = await ws.run(processTool, { id, action: "stop" });
  assertStringIncludes(stopped.output, `[${id} stopped; exit code`);
  assertEquals(stopped.metadata?.running, false);
  assertEquals(await survivors(marker), "");
});

Deno.test("wait_ms returns as soon as the command exits, with its exit code", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, {
    command: "echo working; sleep 0.2; echo finished >&2; exit 4",
    background: true,
  });
  const id = String(result.metadata?.id);
  const started = Date.now();
  const done = await ws.run(processTool, { id, action: "output", wait_ms: 10_000 });
  assert(Date.now() - started < 5_000, "wait_ms waited past the exit");
  assertEquals(done.output, `working\nfinished\n[${id} exited with code 4]`);
  assertEquals(done.metadata?.exitCode, 4);
});

Deno.test("an unknown id is not_found and names the known ones", async () => {
  await using ws = await processWorkspace();
  const none = await ws.fail(processTool, { id: "bg9", action: "output" });
  assertEquals(none.code, "not_found");
  const result = await ws.run(bashTool, { command: "true", background: true });
  const error = await ws.fail(processTool, { id: "bg9", action: "stop" });
  assertStringIncludes(error.hint ?? "", String(result.metadata?.id));
});

Deno.test("stopAll at session end stops every background group", async () => {
  const table = new BackgroundProcesses(plainLauncher, { killGraceMs: 300 });
  const marker = uniqueSleep();
  const cwd = await Deno.makeTempDir();
  await table.start(`sleep ${marker}`, cwd);
  await table.start(`sh -c 'sleep ${marker} & sleep ${marker}'`, cwd);
  await new Promise((resolve) => setTimeout(resolve, 100));
  assert((await survivors(marker)).length > 0);
  await table.stopAll();
  assertEquals(await survivors(marker), "");
  assertEquals(table.list().map((entry) => entry.running), [false, false]);
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("buffered output is capped, oldest dropped, and the drop is reported", async () => {
  const table = new BackgroundProcesses(plainLauncher, { outputCap: 1_000 });
  const cwd = await Deno.makeTempDir();
  const id = await table.start("seq 1 2000", cwd);
  const { output, exitCode } = await table.output(id, 5_000);
  assertEquals(exitCode, 0);
  assert(output.startsWith("["), output.slice(0, 80));
  assertStringIncludes(output, "earlier characters were dropped");
  assert(output.endsWith("1999\n2000\n"));
  await Deno.remove(cwd, { recursive: true });
});

Deno.test("stopping a command that already finished says it had exited, with its output", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, { command: "echo two; exit 5", background: true });
  const id = String(result.metadata?.id);
  const table = ws.ctx.background as BackgroundProcesses;
  for (let i = 0; i < 100 && table.list().some((entry) => entry.running); i++) {
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  const stopped = await ws.run(processTool, { id, action: "stop" });
  assertEquals(stopped.output, `two\n[${id} had already exited with code 5]`);
  assertEquals(stopped.metadata?.exitCode, 5);
});

Deno.test("background output comes without colour codes too", async () => {
  await using ws = await processWorkspace();
  const result = await ws.run(bashTool, {
    command: String.raw`printf '\033[32mok\033[0m\n'`,
    background: true,
  });
  const id = String(result.metadata?.id);
  const read = await ws.run(processTool, { id, action: "output", wait_ms: 2_000 });
  assertEquals(read.output, `ok\n[${id} exited with code 0]`);
});
