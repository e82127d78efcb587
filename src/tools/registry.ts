/**
 * The built-in tool table, the JSON schemas the model is sent (generated from
 * each tool's zod schema, the single source), and argument parsing that
 * answers a malformed call with the schema itself — the model corrects its
 * call from what it is shown rather than guessing.
 */
import * as z from "zod";
import {
  applyPatchTool,
  editTool,
  fileCopyTool,
  fileDeleteTool,
  readTool,
  writeTool,
} from "./files/mod.ts";
import { globTool, grepTool, listTool, symbolTool } from "./search/mod.ts";
import { bashTool, processTool } from "./process/mod.ts";
import { SESSION_TOOL_SCHEMAS, todoReadTool, todoWriteTool } from "./session/mod.ts";
import { webfetchTool } from "./web/mod.ts";
import { type Tool, ToolError } from "./tool.ts";
import { issueProblems } from "../config/errors.ts";
import { GENERATED_TOOL_PARAMETERS } from "../boot/generated_tool_parameters.ts";

/** Every tool that needs nothing but a ToolContext (task, skill and MCP tools are added by the app). */
export function builtinTools(): Tool[] {
  return [
    bashTool,
    processTool,
    readTool,
    writeTool,
    editTool,
    applyPatchTool,
    fileCopyTool,
    fileDeleteTool,
    globTool,
    grepTool,
    symbolTool,
    listTool,
    todoWriteTool,
    todoReadTool,
    webfetchTool,
  ] as Tool[];
}

export interface ToolSchemaEntry {
  name: string;
  description: string;
  parameters: Record<string, unknown>;
}

/** A tool's parameters as JSON Schema (without the `$schema` marker providers do not want). */
export function parametersOf(tool: Tool): Record<string, unknown> {
  if (tool.jsonSchema) {
    // MCP tools bring their schema as JSON; it is the one the server checks against.
    const schema = { ...tool.jsonSchema };
    delete schema.$schema;
    return schema;
  }
  // A built-in or session tool's, converted ahead (zod's converter is costly at each start); a copy.
  const converted = generatedParameters().get(tool.schema);
  return converted ? structuredClone(converted) : convertParameters(tool);
}

/** zod's conversion of a tool's schema (scripts/gen_tool_parameters.ts writes the table's). */
export function convertParameters(tool: Pick<Tool, "schema">): Record<string, unknown> {
  const schema = z.toJSONSchema(tool.schema as z.ZodType, { unrepresentable: "any" }) as Record<
    string,
    unknown
  >;
  delete schema.$schema;
  return schema;
}

/**
 * The tools whose parameters are converted ahead of time: the built-in ones
 * and the session tools (task, skill, done_propose, harness memory), whose
 * zod schemas are module constants.
 */
export function generatedToolSchemas(): (readonly [string, Tool["schema"]])[] {
  return [
    ...builtinTools().map((tool) => [tool.name, tool.schema] as const),
    ...SESSION_TOOL_SCHEMAS,
  ];
}

/**
 * Builds the input schema of the built-in or session tool `name` now, and
 * runs its parser once on nothing. The schemas are lazy: a process builds
 * only those it uses (the first costs most, compiling zod's code;
 * docs/performance.md). Then starts the tool's own `prepare` (bash: the shell
 * parser). The engine's Worker calls this for `skiff tool <name>` while it
 * waits for the session, so the call does not pay it.
 */
export function prepareTool(name: string): void {
  const found = generatedToolSchemas().find(([tool]) => tool === name);
  (found?.[1] as z.ZodType | undefined)?.safeParse(undefined);
  builtinTools().find((tool) => tool.name === name)?.prepare?.();
}

let generatedByZodSchema: Map<unknown, Record<string, unknown>> | undefined;

/**
 * The generated parameters, keyed by the very zod schema they were made
 * from: a tool under one of these names with another schema is converted.
 */
function generatedParameters(): Map<unknown, Record<string, unknown>> {
  return generatedByZodSchema ??= new Map(
    generatedToolSchemas()
      .filter(([name]) => Object.hasOwn(GENERATED_TOOL_PARAMETERS, name))
      .map(([name, schema]) => [schema, GENERATED_TOOL_PARAMETERS[name]]),
  );
}

export function toolSchemas(tools: Tool[]): ToolSchemaEntry[] {
  return tools.map((tool) => ({
    name: tool.name,
    description: tool.description,
    parameters: parametersOf(tool),
  }));
}

/**
 * The call's arguments checked against the tool's schema. `raw` is the JSON
 * text the model sent (an empty string counts as `{}`), or an already parsed
 * value. A failure is `bad_input` naming what was wrong and echoing the schema.
 */
export function parseToolInput<I>(tool: Tool<I>, raw: unknown): I {
  let value: unknown = raw;
  if (typeof raw === "string") {
    const text = raw.trim() === "" ? "{}" : raw;
    try {
      value = JSON.parse(text);
    } catch (error) {
      throw badInput(tool, `The arguments are not valid JSON (${(error as Error).message}).`);
    }
  }
  const parsed = (tool.schema as z.ZodType<I>).safeParse(value);
  if (parsed.success) return parsed.data;
  throw badInput(tool, describeIssues(tool.schema as z.ZodType, parsed.error.issues, value));
}

/** zod's issues, read by the config module's reader, in the words the model is used to. */
function describeIssues(
  schema: z.ZodType,
  issues: readonly z.core.$ZodIssue[],
  value: unknown,
): string {
  return issueProblems(schema, value, issues).map(({ path, message, missing }) => {
    const where = path.length ? path.map(String).join(".") : "(the arguments)";
    if (missing && path.length) {
      return `- ${where}: required field is missing (expected ${missing})`;
    }
    return `- ${where}: ${message}`;
  }).join("\n");
}

function badInput(tool: Tool, problem: string): ToolError {
  const schema = JSON.stringify(parametersOf(tool), null, 2);
  return new ToolError(
    "bad_input",
    `Invalid arguments for the ${tool.name} tool:\n${problem}\n\nThe ${tool.name} tool takes arguments matching this JSON Schema:\n${schema}`,
    "Call the tool again with arguments that match the schema.",
  );
}
