/**
 * The built-in and session tools' parameters are converted ahead of time
 * (src/boot/generated_tool_parameters.ts, written by
 * scripts/gen_tool_parameters.ts): what the model is sent must stay byte for
 * byte what zod's converter makes of each tool's schema today.
 */
import { z } from "zod";
import { assert, assertEquals, assertNotEquals } from "../support/assert.ts";
import {
  builtinTools,
  convertParameters,
  generatedToolSchemas,
  parametersOf,
  parseToolInput,
  toolSchemas,
} from "../../src/tools/registry.ts";
import { GENERATED_TOOL_PARAMETERS } from "../../src/boot/generated_tool_parameters.ts";
import {
  createDoneProposeTool,
  createHarnessTools,
  createSkillTool,
  createTaskTool,
} from "../../src/tools/session/mod.ts";
import type { MemoryTable } from "../../src/store/memory.ts";
import { RequestBodyWriter } from "../../src/provider/chat/request_body.ts";
import type { Tool } from "../../src/tools/tool.ts";
import { PARAMETERS_FILE, parametersModule } from "../../scripts/gen_tool_parameters.ts";

const REGENERATE = "run: deno run -A scripts/gen_tool_parameters.ts";

/** Every tool whose parameters are generated, made the way a session makes them. */
function sessionTools(): Tool[] {
  return [
    ...builtinTools(),
    createTaskTool({ run: () => Promise.reject(new Error("not run")) }, []),
    createSkillTool([]),
    createDoneProposeTool(() => {}),
    ...createHarnessTools({} as MemoryTable, Deno.cwd(), "session"),
  ] as Tool[];
}

Deno.test("each generated entry is byte for byte zod's conversion of the tool's schema", () => {
  const tools = sessionTools();
  assertEquals(
    Object.keys(GENERATED_TOOL_PARAMETERS),
    tools.map((tool) => tool.name),
    `the generated table lists exactly the built-in and session tools, in order; ${REGENERATE}`,
  );
  for (const tool of tools) {
    assertEquals(
      JSON.stringify(parametersOf(tool)),
      JSON.stringify(convertParameters(tool)),
      `${tool.name}: the generated parameters differ from its schema; ${REGENERATE}`,
    );
  }
});

Deno.test("the tools a session builds carry the very schemas the table was made from", () => {
  const listed = new Map(generatedToolSchemas());
  for (const tool of sessionTools()) {
    assert(listed.get(tool.name) === tool.schema, `${tool.name}: not the listed zod schema`);
  }
});

Deno.test("the generated file is what the generator writes now", async () => {
  const formatted = await new Deno.Command(Deno.execPath(), {
    args: ["fmt", "--ext", "ts", "-"],
    stdin: "piped",
    stdout: "piped",
  }).spawn();
  const writer = formatted.stdin.getWriter();
  await writer.write(new TextEncoder().encode(parametersModule()));
  await writer.close();
  const output = await formatted.output();
  assert(output.success, "deno fmt formats the generated module");
  assertEquals(
    await Deno.readTextFile(PARAMETERS_FILE),
    new TextDecoder().decode(output.stdout),
    REGENERATE,
  );
});

Deno.test("a model request's body is the same with the generated parameters as with converted ones", () => {
  const tools = sessionTools();
  const converted = tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: convertParameters(tool),
  }));
  const messages = [{ role: "user" as const, content: "hi" }];
  const fields = { model: "m", stream: true };
  const text = (tools: Parameters<RequestBodyWriter["body"]>[2]) =>
    new RequestBodyWriter().body(fields, messages, tools).text();
  return Promise.all([text(toolSchemas(tools)), text(converted)]).then(([generated, fresh]) => {
    assert(generated.includes('"name":"bash"'), "the body carries the tools");
    assertEquals(generated, fresh);
  });
});

Deno.test("a tool under a built-in's name with another schema is converted, not taken from the table", () => {
  const read = builtinTools().find((tool) => tool.name === "read")!;
  const other: Tool = { ...read, schema: z.object({ only: z.string() }) } as Tool;
  const parameters = parametersOf(other);
  assertEquals(Object.keys(parameters.properties as object), ["only"]);
  assertNotEquals(JSON.stringify(parameters), JSON.stringify(parametersOf(read)));
});

Deno.test("each call gets its own copy: changing one does not change the next", () => {
  const read = builtinTools().find((tool) => tool.name === "read")!;
  const first = parametersOf(read);
  (first.properties as Record<string, unknown>).file_path = "changed";
  first.extra = true;
  const second = parametersOf(read);
  assertEquals(second.extra, undefined);
  assertNotEquals((second.properties as Record<string, unknown>).file_path, "changed");
});

Deno.test("a bad call still echoes the tool's schema, from the generated parameters", () => {
  const read = builtinTools().find((tool) => tool.name === "read")!;
  let message = "";
  try {
    parseToolInput(read, "{}");
  } catch (error) {
    message = (error as Error).message;
  }
  assert(message.includes(JSON.stringify(convertParameters(read), null, 2)), message);
});
