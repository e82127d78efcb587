/**
 * The registry: every built-in tool present with the parameter names that are
 * a public contract, JSON schemas for the model, and bad arguments answered
 * with what was wrong plus the schema itself.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { builtinTools, parseToolInput, toolSchemas } from "../../src/tools/registry.ts";
import { ToolError } from "../../src/tools/tool.ts";

const CONTRACT: Record<string, string[]> = {
  bash: ["command", "timeout_ms", "cwd", "description", "background"],
  process: ["id", "action", "wait_ms"],
  read: ["file_path", "offset", "limit"],
  write: ["file_path", "content"],
  edit: ["file_path", "old_string", "new_string", "replace_all", "edits"],
  apply_patch: ["patch"],
  file_copy: ["source", "destination"],
  file_delete: ["file_path"],
  glob: ["pattern", "path"],
  grep: ["pattern", "path", "include", "context_lines"],
  symbol: ["name", "kind", "path", "glob"],
  list: ["path", "depth"],
  todowrite: ["todos"],
  todoread: [],
  webfetch: ["url", "format", "timeout_ms"],
};

function toolNamed(name: string) {
  const tool = builtinTools().find((candidate) => candidate.name === name);
  if (!tool) throw new Error(`no tool ${name}`);
  return tool;
}

Deno.test("every built-in tool is registered with exactly its contract parameters", () => {
  const schemas = toolSchemas(builtinTools());
  const names = schemas.map((schema) => schema.name);
  assertEquals(new Set(names).size, names.length, "tool names are unique");
  for (const schema of schemas) {
    const expected = CONTRACT[schema.name];
    assert(expected, `unexpected tool ${schema.name}`);
    const properties = Object.keys((schema.parameters.properties ?? {}) as object);
    assertEquals(properties.sort(), [...expected].sort(), `parameters of ${schema.name}`);
    assertEquals(schema.parameters.type, "object");
    assert(!("$schema" in schema.parameters));
    assert(schema.description.length > 40, `${schema.name} needs a description for the model`);
  }
  assertEquals([...names].sort(), Object.keys(CONTRACT).sort());
});

Deno.test("valid arguments parse, from JSON text or a value; empty text counts as {}", () => {
  assertEquals(parseToolInput(toolNamed("bash"), '{"command":"ls"}'), { command: "ls" });
  assertEquals(parseToolInput(toolNamed("glob"), { pattern: "*.ts" }), { pattern: "*.ts" });
  assertEquals(parseToolInput(toolNamed("todoread"), ""), {});
});

function badInput(run: () => unknown): ToolError {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolError) return error;
    throw error;
  }
  throw new Error("expected bad_input");
}

Deno.test("invalid JSON is bad_input naming the problem and echoing the schema", () => {
  const error = badInput(() => parseToolInput(toolNamed("grep"), '{"pattern": '));
  assertEquals(error.code, "bad_input");
  assertStringIncludes(error.message, "not valid JSON");
  assertStringIncludes(error.message, '"context_lines"');
  assertStringIncludes(error.message, "JSON Schema");
});

Deno.test("a missing field and a wrong value are each named, with the schema echoed", () => {
  const error = badInput(() =>
    parseToolInput(toolNamed("process"), { action: "restart", wait_ms: "soon" })
  );
  assertEquals(error.code, "bad_input");
  assertStringIncludes(error.message, "- id: required field is missing (expected string)");
  assertStringIncludes(error.message, "- action:");
  assertStringIncludes(error.message, "- wait_ms:");
  assertStringIncludes(error.message, '"enum": [\n');
  const nested = badInput(() =>
    parseToolInput(toolNamed("todowrite"), {
      todos: [{ content: "x", status: "doing", priority: "high" }],
    })
  );
  assertStringIncludes(nested.message, "- todos.0.status:");
});
