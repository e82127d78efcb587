/**
 * A malformed tool call is described by the same reader of zod issues as a
 * malformed config file (config/errors.ts): the values allowed and the value
 * sent, not zod's own wording.
 */
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { builtinTools, parseToolInput } from "../../src/tools/registry.ts";
import { ToolError } from "../../src/tools/tool.ts";

function problemLines(name: string, input: unknown): string[] {
  const tool = builtinTools().find((candidate) => candidate.name === name)!;
  try {
    parseToolInput(tool, input);
  } catch (error) {
    if (!(error instanceof ToolError)) throw error;
    assertEquals(error.code, "bad_input");
    return error.message.split("\n\n")[0].split("\n").slice(1);
  }
  throw new Error(`expected bad_input from ${name}`);
}

Deno.test("a tool call's wrong values are named with what was sent, as in a config error", () => {
  assertEquals(problemLines("process", { action: "restart", wait_ms: "soon" }), [
    "- id: required field is missing (expected string)",
    '- action: expected one of "output", "stop", got "restart"',
    '- wait_ms: expected a number, got "soon"',
  ]);
});

Deno.test("arguments that are not an object say what they were", () => {
  const [line] = problemLines("read", 5);
  assertStringIncludes(line, "- (the arguments): expected an object, got 5");
});
