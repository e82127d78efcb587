/**
 * What skiff knows of a model family before the config says anything: how
 * its calls look when a server leaves them as text, which vLLM parser reads
 * them, and whether text calls are looked for at all. A model's own entry in
 * the config (`provider.models["<id>"]`) wins over this table; context windows and
 * output limits are in model_limits.ts.
 */

/** The text formats of calls skiff reads (text_tool_calls.ts). */
export const TEXT_TOOL_CALL_FORMATS = ["hermes", "mistral", "llama3", "deepseek"] as const;
export type TextToolCallFormat = typeof TEXT_TOOL_CALL_FORMATS[number];
/** `off`: text stays text; `auto`: every format; a format: that one only. */
export type TextToolCallSetting = "off" | "auto" | TextToolCallFormat;

export interface ModelFamily {
  /** As people name it, for `skiff doctor`. */
  name: string;
  /** How its calls look when written as text (the first format tried). */
  textFormat?: TextToolCallFormat;
  /** Text calls looked for by default: "off" for hosted APIs, which always parse calls. */
  textToolCalls: TextToolCallSetting;
  /** vLLM's `--tool-call-parser` for the family, named in the fix. */
  vllmParser?: string;
}

/**
 * Matched against the name after any "vendor/" prefix (and any Ollama
 * ":tag"), first match wins, so a variant comes before its family.
 */
const FAMILIES: Array<[RegExp, ModelFamily]> = [
  [/qwen-?3.*coder/i, {
    name: "Qwen3-Coder",
    textFormat: "hermes",
    textToolCalls: "auto",
    vllmParser: "qwen3_coder",
  }],
  [/qwen|qwq/i, {
    name: "Qwen",
    textFormat: "hermes",
    textToolCalls: "auto",
    vllmParser: "hermes",
  }],
  [/hermes/i, {
    name: "Hermes",
    textFormat: "hermes",
    textToolCalls: "auto",
    vllmParser: "hermes",
  }],
  [/mistral|mixtral|codestral|devstral|magistral|ministral/i, {
    name: "Mistral",
    textFormat: "mistral",
    textToolCalls: "auto",
    vllmParser: "mistral",
  }],
  [/llama-?3/i, {
    name: "Llama 3",
    textFormat: "llama3",
    textToolCalls: "auto",
    vllmParser: "llama3_json",
  }],
  [/deepseek/i, {
    name: "DeepSeek",
    textFormat: "deepseek",
    textToolCalls: "auto",
    vllmParser: "deepseek_v3",
  }],
  // Hosted APIs return structured calls; prose that quotes markup stays prose.
  [/^(gpt-|o\d|chatgpt|codex)/i, { name: "OpenAI", textToolCalls: "off" }],
  [/^claude/i, { name: "Claude", textToolCalls: "off" }],
  [/^gemini/i, { name: "Gemini", textToolCalls: "off" }],
];

function baseName(model: string): string {
  const slash = model.lastIndexOf("/");
  return slash >= 0 ? model.slice(slash + 1) : model;
}

/** The family of `model`, or undefined for one this table does not know. */
export function familyOf(model: string): ModelFamily | undefined {
  const name = baseName(model);
  return FAMILIES.find(([pattern]) => pattern.test(name))?.[1];
}

/**
 * How text calls are read for `model`: as `configured` (its entry in
 * `provider.models`), else its family's default, else "auto".
 */
export function textToolCallSetting(
  model: string,
  configured?: TextToolCallSetting,
): TextToolCallSetting {
  return configured ?? familyOf(model)?.textToolCalls ?? "auto";
}
