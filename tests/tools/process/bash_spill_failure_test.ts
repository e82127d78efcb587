/**
 * bash when its spill file cannot be written (a data folder that is not a
 * folder stands in for a full or read-only disk): the model still gets the
 * head and tail of the output with a note that the rest could not be kept and
 * why, and the result's metadata (so the tool.completed event) says so too.
 * Before, the output was lost and the model read "(no output)".
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { bashTool } from "../../../src/tools/process/bash.ts";
import { processWorkspace } from "../_processes.ts";

Deno.test("output past the limit is kept (head and tail) with the reason when the spill file cannot be written", async () => {
  await using ws = await processWorkspace();
  const dataDir = path.join(ws.root, "data-is-a-file");
  await Deno.writeTextFile(dataDir, "not a folder\n");
  ws.ctx.dataDir = dataDir;
  const result = await ws.run(bashTool, { command: "seq 1 300000", timeout_ms: 60_000 });
  assert(result.output.length <= 30_000, `output has ${result.output.length} characters`);
  assert(result.output.startsWith("1\n2\n3\n"), result.output.slice(0, 40));
  assert(result.output.endsWith("300000\nexit code: 0"), result.output.slice(-40));
  assertStringIncludes(result.output, "the full output could not be saved (");
  assertEquals(result.metadata?.truncated, true);
  assertEquals(result.metadata?.fullOutputPath, undefined);
  const reason = result.metadata?.outputNotKept;
  assert(typeof reason === "string" && reason.length > 0, "metadata names why");
  assertStringIncludes(result.output, reason as string);
});

Deno.test("short output needs no spill file and is whole even where none can be written", async () => {
  await using ws = await processWorkspace();
  const dataDir = path.join(ws.root, "data-is-a-file");
  await Deno.writeTextFile(dataDir, "not a folder\n");
  ws.ctx.dataDir = dataDir;
  const result = await ws.run(bashTool, { command: "echo hello" });
  assertEquals(result.output, "hello\nexit code: 0");
  assertEquals(result.metadata?.outputNotKept, undefined);
});
