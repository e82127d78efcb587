/**
 * Tool schemas in Gemini's subset (https://ai.google.dev/api/caching#Schema):
 * the keywords its endpoint refuses are rewritten or dropped, the rest kept.
 */
import { assertEquals } from "../../support/assert.ts";
import { schemaDialectFor, schemaFor } from "../../../src/provider/dialects/schema_dialect.ts";

Deno.test("the Gemini dialect keeps the meaning it can and drops what Gemini refuses", () => {
  const zodMade = {
    $schema: "https://json-schema.org/draft/2020-12/schema",
    type: "object",
    additionalProperties: false,
    properties: {
      limit: { type: "integer", exclusiveMinimum: 0, maximum: 9007199254740991 },
      mode: { const: "fast" },
      note: { type: ["string", "null"], description: "why" },
      tags: { type: "array", items: { type: "object", propertyNames: { pattern: "^a" } } },
      pick: { oneOf: [{ type: "string" }, { type: "number", exclusiveMaximum: 2.5 }] },
    },
    required: ["limit"],
  };
  const before = structuredClone(zodMade);
  assertEquals(schemaFor("gemini", zodMade), {
    type: "object",
    properties: {
      limit: { type: "integer", minimum: 1, maximum: 9007199254740991 },
      mode: { enum: ["fast"] },
      note: { type: "string", nullable: true, description: "why" },
      tags: { type: "array", items: { type: "object" } },
      pick: { anyOf: [{ type: "string" }, { type: "number", maximum: 2.5 }] },
    },
    required: ["limit"],
  });
  assertEquals(zodMade, before, "the source schema is not changed");
  assertEquals(schemaFor("openai", zodMade), zodMade);
});

Deno.test("Google's hosts get the Gemini dialect unless the config says otherwise", () => {
  const google = "https://generativelanguage.googleapis.com/v1beta/openai";
  assertEquals(schemaDialectFor(google), "gemini");
  assertEquals(schemaDialectFor(google, "openai"), "openai");
  assertEquals(schemaDialectFor("https://openrouter.ai/api/v1"), "openai");
  assertEquals(schemaDialectFor("http://127.0.0.1:8080/v1", "gemini"), "gemini");
});
