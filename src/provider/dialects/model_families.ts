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
  /**
   * A line added to the system prompt where the family needs one: how to
   * write a call as text in the form skiff reads, for when the server leaves
   * calls as text. The default prompt is the same for every other model.
   */
  promptNote?: string;
}

/** What a call written as text should look like, per format skiff reads (text_tool_calls.ts). */
const FORMAT_NOTES: Partial<Record<TextToolCallFormat, string>> = {
  hermes: 'When you call a tool as text, write each call as <tool_call>{"name": "<tool>", ' +
    '"arguments": {<arguments as JSON>}}</tool_call>, outside code blocks.',
  mistral: 'When you call tools as text, write [TOOL_CALLS][{"name": "<tool>", ' +
    '"arguments": {<arguments as JSON>}}] with every call in the one list, outside code blocks.',
  llama3: 'When you call a tool, answer with only {"name": "<tool>", "parameters": ' +
    "{<arguments as JSON>}}, calls separated by ;, and no other text.",
  // DeepSeek's markup is made of special tokens: written into the prompt it would be read as them.
};

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
    // Its own template writes calls as XML; skiff reads that too.
    promptNote: "When you call a tool as text, write each call as <tool_call><function=<tool>>" +
      "<parameter=<name>><value></parameter></function></tool_call>, outside code blocks.",
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
 * The system prompt's note for `model`, given how its text calls are read
 * (`configured`: its entry's `textToolCalls`): the family's, or the note of
 * the configured format; none when text calls are not read, or for a model
 * whose family needs none.
 */
export function promptNoteFor(model: string, configured?: TextToolCallSetting): string | undefined {
  const family = familyOf(model);
  const setting = textToolCallSetting(model, configured);
  if (setting === "off") return undefined;
  const format = setting === "auto" ? family?.textFormat : setting;
  if (!format) return undefined;
  if (family?.textFormat === format && family.promptNote) return family.promptNote;
  return FORMAT_NOTES[format];
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
