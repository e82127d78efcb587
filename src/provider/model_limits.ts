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

/** Families whose limits are published; matched on the name after any "vendor/" prefix. */
const BUILTIN: Array<[RegExp, { context: number; output: number }]> = [
  [/^gpt-4o/, { context: 128_000, output: 16_384 }],
  [/^gpt-4\.1/, { context: 1_047_576, output: 32_768 }],
  // The chat variants are smaller than the family: asking them for 128k output is a 400.
  [/^gpt-5(\.\d+)?-chat/, { context: 128_000, output: 16_384 }],
  [/^gpt-5/, { context: 400_000, output: 128_000 }],
  [/^o[34](\b|-)/, { context: 200_000, output: 100_000 }],
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
