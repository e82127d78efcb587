/**
 * Tool schemas in the dialect a server accepts. The tools' JSON Schema is
 * generated from their zod schemas, and OpenAI's endpoint takes it whole;
 * Gemini reads function parameters as its own subset of OpenAPI 3.0 and
 * refuses the request over any other keyword: `400 Invalid JSON payload
 * received. Unknown name "exclusiveMinimum" at
 * 'tools[0].function_declarations[0].parameters.properties[…]'` (likewise
 * `additionalProperties`, `$schema`, `const`, `propertyNames`). So each
 * schema is rewritten into the subset once, from the same source.
 * The subset: https://ai.google.dev/api/caching#Schema (the fields of `Schema`).
 */
import type { ChatProvider, ToolSchema } from "../types.ts";

export type SchemaDialect = "openai" | "gemini";

/** The keywords Gemini's `Schema` has; any other is refused. */
const GEMINI_KEYWORDS = new Set([
  "type",
  "format",
  "title",
  "description",
  "nullable",
  "enum",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "minProperties",
  "maxProperties",
  "minLength",
  "maxLength",
  "pattern",
  "example",
  "anyOf",
  "propertyOrdering",
  "default",
  "minimum",
  "maximum",
]);

/** Hosts that speak Gemini's dialect behind an OpenAI-compatible path. */
const GEMINI_HOSTS = /(^|\.)(generativelanguage|aiplatform)\.googleapis\.com$/;

/**
 * The dialect for an endpoint: `configured` when set, else Gemini's for
 * Google's hosts and the whole JSON Schema for everyone else.
 */
export function schemaDialectFor(baseURL: string, configured?: SchemaDialect): SchemaDialect {
  if (configured) return configured;
  const host = URL.parse(baseURL)?.hostname ?? "";
  return GEMINI_HOSTS.test(host) ? "gemini" : "openai";
}

/** `schema` (a tool's parameters) as `dialect` accepts it; the input is not changed. */
export function schemaFor(dialect: SchemaDialect, schema: Record<string, unknown>) {
  return dialect === "gemini" ? geminiSchema(schema) : schema;
}

function geminiSchema(schema: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  const integer = schema.type === "integer";
  for (const [key, value] of Object.entries(schema)) {
    if (key === "properties" && isObject(value)) {
      out.properties = Object.fromEntries(
        Object.entries(value).map(([name, sub]) => [name, isObject(sub) ? geminiSchema(sub) : sub]),
      );
    } else if (key === "items" && isObject(value)) {
      out.items = geminiSchema(value);
    } else if ((key === "anyOf" || key === "oneOf") && Array.isArray(value)) {
      out.anyOf = value.map((sub) => isObject(sub) ? geminiSchema(sub) : sub);
    } else if (key === "type" && Array.isArray(value)) {
      // ["string", "null"]: OpenAPI 3.0 says nullable instead.
      const types = value.filter((type) => type !== "null");
      if (types.length === 1) out.type = types[0];
      else out.anyOf = types.map((type) => ({ type }));
      if (types.length < value.length) out.nullable = true;
    } else if (key === "const") {
      out.enum = [value];
    } else if (key === "exclusiveMinimum" && typeof value === "number") {
      // The nearest bound Gemini knows; for a whole number it is exact.
      out.minimum = integer ? value + 1 : value;
    } else if (key === "exclusiveMaximum" && typeof value === "number") {
      out.maximum = integer ? value - 1 : value;
    } else if (GEMINI_KEYWORDS.has(key) && !(key in out)) {
      out[key] = value;
    }
  }
  return out;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/**
 * `provider`, sending each request's tool schemas in the dialect
 * `dialectFor` names for its model. The rewritten list is kept per list of
 * schemas, so a session's requests send one unchanged array (the request
 * body caches its JSON by that array).
 */
export function withSchemaDialect(
  provider: ChatProvider,
  dialectFor: (model: string) => SchemaDialect,
): ChatProvider {
  const rewritten = new WeakMap<
    readonly ToolSchema[],
    { dialect: SchemaDialect; from: ToolSchema[]; made: ToolSchema[] }
  >();
  const toolsFor = (tools: ToolSchema[], dialect: SchemaDialect) => {
    if (dialect === "openai") return tools;
    const cached = rewritten.get(tools);
    const same = cached?.dialect === dialect && cached.from.length === tools.length &&
      cached.from.every((tool, index) => tool === tools[index]);
    if (cached && same) return cached.made;
    const made = tools.map((tool) => ({
      ...tool,
      parameters: schemaFor(dialect, tool.parameters),
    }));
    rewritten.set(tools, { dialect, from: [...tools], made });
    return made;
  };
  return {
    baseURL: provider.baseURL,
    stream: (request, handlers, signal) =>
      provider.stream(
        { ...request, tools: toolsFor(request.tools, dialectFor(request.model)) },
        handlers,
        signal,
      ),
  };
}
