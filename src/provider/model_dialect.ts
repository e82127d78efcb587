/**
 * What a model's endpoint needs beyond the Chat Completions wire, applied
 * around the client: tool schemas in the dialect the server accepts
 * (schema_dialect.ts), and calls the model wrote as text read as calls
 * (text_tool_calls.ts), each chosen per model from the config's `models`
 * entries and the built-in family table (model_families.ts).
 */
import { textToolCallSetting } from "./model_families.ts";
import { type SchemaDialect, schemaDialectFor, withSchemaDialect } from "./schema_dialect.ts";
import { type TextToolCallSetting, withTextToolCalls } from "./text_tool_calls.ts";
import type { ChatProvider } from "./types.ts";

/** A model's entry in the config, as far as these settings go. */
export interface ModelDialectSettings {
  textToolCalls?: TextToolCallSetting;
  toolSchemas?: SchemaDialect;
}

function entryFor(
  model: string,
  models: Record<string, ModelDialectSettings | undefined>,
): ModelDialectSettings | undefined {
  return models[model] ?? models[model.slice(model.lastIndexOf("/") + 1)];
}

/** `provider` with each model's schema dialect and text tool-call reading. */
export function withModelDialect(
  provider: ChatProvider,
  models: Record<string, ModelDialectSettings | undefined> = {},
): ChatProvider {
  const schemas = withSchemaDialect(
    provider,
    (model) => schemaDialectFor(provider.baseURL, entryFor(model, models)?.toolSchemas),
  );
  return withTextToolCalls(schemas, (model) => textToolCallSetting(model, models));
}
