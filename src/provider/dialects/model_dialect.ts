/**
 * What a model's endpoint needs beyond the wire protocol, applied around the
 * client: tool schemas in the dialect the server accepts (schema_dialect.ts),
 * calls the model wrote as text read as calls (text_tool_calls.ts), and the
 * reasoning effort asked of it (reasoning_effort.ts), each chosen per model
 * from the provider's `models` entries in the config and the built-in family
 * table (model_families.ts).
 */
import { type TextToolCallSetting, textToolCallSetting } from "./model_families.ts";
import { modelEntry } from "./model_settings.ts";
import { type SchemaDialect, schemaDialectFor, withSchemaDialect } from "./schema_dialect.ts";
import { withTextToolCalls } from "./text_tool_calls.ts";
import {
  type ReasoningEffort,
  reasoningEffortFor,
  type ReasoningEffortSettings,
} from "./reasoning_effort.ts";
import type { ChatProvider } from "../types.ts";

/** A model's entry in `provider.models`, as far as these settings go. */
export interface ModelDialectSettings {
  textToolCalls?: TextToolCallSetting;
  toolSchemas?: SchemaDialect;
  reasoningEffort?: ReasoningEffort;
}

/** The settings skiff uses for `model` at `baseURL`: its entry's, else the defaults. */
export function modelDialect(
  model: string,
  baseURL: string,
  models?: Record<string, ModelDialectSettings>,
): Required<Omit<ModelDialectSettings, "reasoningEffort">> {
  const entry = modelEntry(model, models);
  return {
    textToolCalls: textToolCallSetting(model, entry?.textToolCalls),
    toolSchemas: schemaDialectFor(baseURL, entry?.toolSchemas),
  };
}

/**
 * `provider` with each model's schema dialect, text tool-call reading and
 * reasoning effort (`effort`: the provider's and the flag's; a request that
 * names its own effort keeps it).
 */
export function withModelDialect(
  provider: ChatProvider,
  models?: Record<string, ModelDialectSettings>,
  effort: Omit<ReasoningEffortSettings, "models"> = {},
): ChatProvider {
  const dialect = (model: string) => modelDialect(model, provider.baseURL, models);
  const efforts: ReasoningEffortSettings = { ...effort, models };
  const withEffort: ChatProvider = {
    baseURL: provider.baseURL,
    stream(request, handlers, signal) {
      const reasoningEffort = request.reasoningEffort ??
        reasoningEffortFor(request.model, efforts);
      return provider.stream(
        reasoningEffort ? { ...request, reasoningEffort } : request,
        handlers,
        signal,
      );
    },
  };
  const schemas = withSchemaDialect(withEffort, (model) => dialect(model).toolSchemas);
  return withTextToolCalls(schemas, (model) => dialect(model).textToolCalls);
}
