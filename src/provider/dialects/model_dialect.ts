/**
 * What a model's endpoint needs beyond the wire protocol, applied around the
 * client: tool schemas in the dialect the server accepts (schema_dialect.ts),
 * and calls the model wrote as text read as calls (text_tool_calls.ts), each
 * chosen per model from the provider's `models` entries in the config and
 * the built-in family table (model_families.ts).
 */
import { type TextToolCallSetting, textToolCallSetting } from "./model_families.ts";
import { modelEntry } from "./model_settings.ts";
import { type SchemaDialect, schemaDialectFor, withSchemaDialect } from "./schema_dialect.ts";
import { withTextToolCalls } from "./text_tool_calls.ts";
import type { ChatProvider } from "../types.ts";

/** A model's entry in `provider.models`, as far as these settings go. */
export interface ModelDialectSettings {
  textToolCalls?: TextToolCallSetting;
  toolSchemas?: SchemaDialect;
}

/** The settings skiff uses for `model` at `baseURL`: its entry's, else the defaults. */
export function modelDialect(
  model: string,
  baseURL: string,
  models?: Record<string, ModelDialectSettings>,
): Required<ModelDialectSettings> {
  const entry = modelEntry(model, models);
  return {
    textToolCalls: textToolCallSetting(model, entry?.textToolCalls),
    toolSchemas: schemaDialectFor(baseURL, entry?.toolSchemas),
  };
}

/** `provider` with each model's schema dialect and text tool-call reading. */
export function withModelDialect(
  provider: ChatProvider,
  models?: Record<string, ModelDialectSettings>,
): ChatProvider {
  const dialect = (model: string) => modelDialect(model, provider.baseURL, models);
  const schemas = withSchemaDialect(provider, (model) => dialect(model).toolSchemas);
  return withTextToolCalls(schemas, (model) => dialect(model).textToolCalls);
}
