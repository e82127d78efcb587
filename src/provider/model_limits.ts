/**
 * How many tokens a model can read (context) and write (output) in one
 * request. The config's `models` map wins; a few well-known model families
 * fill the gaps; anything else gets a context default and no output limit,
 * so the server applies its own rather than rejecting a guess of ours.
 */

/** As written in config: `"models": { "my-model": { "context": 32768, "output": 4096 } }`. */
export interface ConfiguredModelLimits {
  context?: number;
  output?: number;
}

export interface ModelLimits {
  context: number;
  /** Undefined: the model is unknown, let the server choose. */
  output?: number;
  /** Where the numbers came from, for diagnostics. */
  source: "config" | "builtin" | "default";
}

/** Assumed context window of a model nobody described. */
export const DEFAULT_CONTEXT_TOKENS = 128_000;

/** Room left for the answer is never squeezed below this (the server will say if it is too much). */
const MIN_OUTPUT_TOKENS = 1_024;

/**
 * Families whose limits are published; matched on the name after any
 * "vendor/" prefix, first match wins (so a variant comes before its family).
 * Open-weight families list only their trained context: the server that
 * runs them picks the output limit (and may run them with a smaller window,
 * which its "context length exceeded" answer then tells us).
 */
const BUILTIN: Array<[RegExp, { context: number; output?: number }]> = [
  [/^gpt-4o/, { context: 128_000, output: 16_384 }],
  [/^gpt-4\.1/, { context: 1_047_576, output: 32_768 }],
  [/^gpt-4-turbo/, { context: 128_000, output: 4_096 }],
  [/^gpt-4-32k/, { context: 32_768, output: 4_096 }],
  [/^gpt-4(-\d{4})?$/, { context: 8_192, output: 4_096 }],
  [/^gpt-3\.5-turbo/, { context: 16_385, output: 4_096 }],
  // The chat variants are smaller than the family: asking them for 128k output is a 400.
  [/^gpt-5(\.\d+)?-chat/, { context: 128_000, output: 16_384 }],
  [/^gpt-5/, { context: 400_000, output: 128_000 }],
  [/^o1-mini/, { context: 128_000, output: 65_536 }],
  [/^o1(\b|-)/, { context: 200_000, output: 100_000 }],
  [/^o[34](\b|-)/, { context: 200_000, output: 100_000 }],
  [/^claude-3-5-/, { context: 200_000, output: 8_192 }],
  [/^claude-3-7-sonnet/, { context: 200_000, output: 64_000 }],
  [/^claude-(sonnet-4|4-sonnet)/, { context: 200_000, output: 64_000 }],
  [/^claude-(opus-4|4-opus)/, { context: 200_000, output: 32_000 }],
  [/^gemini-2\.5-/, { context: 1_048_576, output: 65_536 }],
  [/^gemini-1\.5-pro/, { context: 2_097_152, output: 8_192 }],
  [/^gemini-(1\.5-flash|2\.0-)/, { context: 1_048_576, output: 8_192 }],
  [/^(meta-)?llama-?3\.[123]/i, { context: 131_072 }],
  [/^qwen2\.5/i, { context: 32_768 }],
  [/^deepseek-(chat|reasoner|v3|r1)/i, { context: 65_536 }],
];

function baseName(model: string): string {
  const slash = model.lastIndexOf("/");
  return slash >= 0 ? model.slice(slash + 1) : model;
}

/** Limits for `model`: config entry (exact name, then name without "vendor/"), then built-ins. */
export function resolveModelLimits(
  model: string,
  configured: Record<string, ConfiguredModelLimits> = {},
): ModelLimits {
  const entry = configured[model] ?? configured[baseName(model)];
  const builtin = BUILTIN.find(([pattern]) => pattern.test(baseName(model)))?.[1];
  const context = entry?.context ?? builtin?.context ?? DEFAULT_CONTEXT_TOKENS;
  const output = entry?.output ?? builtin?.output;
  const source = entry ? "config" : builtin ? "builtin" : "default";
  return output === undefined ? { context, source } : { context, output, source };
}

/**
 * The output limit to send with a request: the model's output limit, reduced
 * so prompt + answer fit the context when the prompt size is known. Undefined
 * when the model's output limit is unknown (the request then omits it).
 */
export function pickMaxOutputTokens(
  limits: ModelLimits,
  promptTokens?: number,
): number | undefined {
  if (limits.output === undefined) return undefined;
  if (promptTokens === undefined) return limits.output;
  const room = limits.context - promptTokens;
  return Math.max(Math.min(limits.output, MIN_OUTPUT_TOKENS), Math.min(limits.output, room));
}

/** OpenAI's reasoning models reject `max_tokens` and want `max_completion_tokens`. */
export function outputLimitField(model: string): "max_tokens" | "max_completion_tokens" {
  return /^(o\d|gpt-5)/.test(baseName(model)) ? "max_completion_tokens" : "max_tokens";
}
