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

Deno.test("a lazy schema's keys are known to the reader (the tools' schemas are lazy)", async () => {
  const z = await import("zod");
  const { issueProblems } = await import("../../src/config/errors.ts");
  const schema = z.lazy(() => z.object({ file_path: z.string() }).strict());
  const input = { file_path: "a.ts", fiel_path: "b.ts" };
  const parsed = schema.safeParse(input);
  assertEquals(parsed.success, false);
  const problems = issueProblems(schema, input, parsed.error!.issues);
  assertEquals(problems.length, 1);
  assertStringIncludes(problems[0].message, 'did you mean "file_path"?');
});
