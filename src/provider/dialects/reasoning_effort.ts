/**
 * How hard a reasoning model thinks before it answers, as the user sets it
 * (`provider.reasoningEffort`, a model's own entry in `provider.models`, or
 * `--reasoning-effort`), and how each server takes it:
 *
 * - Chat Completions: `reasoning_effort` (OpenAI; vLLM, Ollama and Gemini's
 *   OpenAI-compatible layer take the same field).
 *   https://platform.openai.com/docs/api-reference/chat/create#chat-create-reasoning_effort,
 *   https://docs.ollama.com/api/openai-compatibility, https://ai.google.dev/gemini-api/docs/openai
 * - OpenRouter: `reasoning: {"effort": …}`, which it maps to each upstream's
 *   own control. https://openrouter.ai/docs/use-cases/reasoning-tokens
 * - The Responses API: `reasoning: {"effort": …}` (responses/responses_request.ts).
 *
 * Nothing is sent when it is not set: the server's default holds. Which
 * values a model takes differs by model (gpt-5.1 added "none", Gemini 3
 * refuses "minimal", OpenAI's non-reasoning models refuse the field), so a
 * refusal naming the field is answered by asking again without it, once,
 * and the field is not sent to that model again (refused_fields.ts).
 */
import type { Dialect } from "./dialect.ts";
import { modelEntry } from "./model_settings.ts";
import type { ReasoningEffort } from "../../contracts/reasoning_effort.ts";

export { REASONING_EFFORTS, type ReasoningEffort } from "../../contracts/reasoning_effort.ts";

/** The name a refusal of the effort is remembered under, whatever the wire calls it. */
export const EFFORT_FIELD = "reasoning_effort";

/** Where the effort comes from, most specific last. */
export interface ReasoningEffortSettings {
  /** `provider.reasoningEffort`: every model's, unless its own entry says otherwise. */
  effort?: ReasoningEffort;
  /** `provider.models`: a model's own entry, by id or pattern. */
  models?: Record<string, { reasoningEffort?: ReasoningEffort }>;
  /** `--reasoning-effort`: this run's, over the config's. */
  flag?: ReasoningEffort;
}

/** The effort asked of `model`: the flag's, else its entry's, else the provider's; undefined: none. */
export function reasoningEffortFor(
  model: string,
  settings: ReasoningEffortSettings,
): ReasoningEffort | undefined {
  return settings.flag ?? modelEntry(model, settings.models)?.reasoningEffort ?? settings.effort;
}

/** The Chat Completions fields carrying `effort` to a server of `dialect`. */
export function effortFields(effort: ReasoningEffort, dialect: Dialect): Record<string, unknown> {
  return dialect === "openrouter" ? { reasoning: { effort } } : { [EFFORT_FIELD]: effort };
}

/** The effort a body written by `effortFields` (or for the Responses API) carries. */
export function effortIn(fields: Record<string, unknown>): ReasoningEffort | undefined {
  const reasoning = fields.reasoning as { effort?: unknown } | undefined;
  const effort = fields[EFFORT_FIELD] ?? reasoning?.effort;
  return typeof effort === "string" ? effort as ReasoningEffort : undefined;
}

/**
 * A 400/422 whose text names the effort: OpenAI's "Unsupported parameter:
 * 'reasoning_effort' is not supported with this model." (or
 * 'reasoning.effort' on the Responses API), "Unsupported value:
 * 'reasoning_effort' does not support 'none' with this model.", Gemini's
 * "Invalid reasoning_effort: minimal. Valid values are: high, low, medium,
 * none" and "Thinking level MEDIUM is not supported for this model", a
 * proxy's "does not support parameters: ['reasoning_effort']", or a refusal
 * of OpenRouter's `reasoning` object.
 */
export function refusesEffort(status: number | undefined, text: string | undefined): boolean {
  if (status !== 400 && status !== 422) return false;
  const said = text ?? "";
  if (/\breasoning[_.]effort\b|\bthinking[ _]level\b/i.test(said)) return true;
  // `\breasoning\b` alone: never `reasoning_content` or `reasoning_details`, which DeepSeek and
  // OpenRouter refuse for what was sent back, not for the effort.
  return /\breasoning\b(?![_.])/i.test(said) &&
    /unsupported|not supported|unknown|unrecognized|not allowed|invalid|extra/i.test(said);
}
