/**
 * A shell that cannot be started is explained by its real cause: Deno gives
 * the same error class for a missing program and for a working folder that
 * is not a folder, and the hint told the model the sandbox or shell was
 * missing in both cases.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { startFailure } from "../../../src/tools/process/bash.ts";
import { ToolError } from "../../../src/contracts/tool_call.ts";

function spawnError(program: string, cwd: string): unknown {
  try {
    new Deno.Command(program, { cwd, stdout: "null", stderr: "null" }).spawn();
  } catch (error) {
    return error;
  }
  throw new Error(`${program} started in ${cwd}`);
}

Deno.test("bash start failure: a working folder that is a file is named as the cause", () => {
  const file = Deno.makeTempFileSync();
  try {
    const failure = startFailure(spawnError("/bin/sh", file));
    assert(failure instanceof ToolError);
    assertEquals(failure.code, "failed");
    assertStringIncludes(failure.message, "cwd is not a directory");
    assertStringIncludes(failure.hint ?? "", "working folder");
    assert(!(failure.hint ?? "").includes("shell program is missing"), failure.hint);
  } finally {
    Deno.removeSync(file);
  }
});

Deno.test("bash start failure: a missing program still says the shell or sandbox is missing", () => {
  const failure = startFailure(spawnError("/nonexistent/skiff-shell", "/"));
  assert(failure instanceof ToolError);
  assertStringIncludes(failure.hint ?? "", "shell program is missing");
});
