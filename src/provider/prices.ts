/**
 * Known list prices of common hosted models, in US dollars per million
 * tokens, for when the config gives none (`models.<name>.cost` wins). Only
 * prices read from the vendor's own pricing page are listed, each with the
 * page and the month it was read; a model not listed costs nothing we know,
 * and skiff then reports tokens only. Names match exactly: a dated snapshot
 * may have had another price (gpt-4o-2024-05-13 did), so it is not assumed.
 */

export interface ModelPrice {
  /** Per million prompt tokens not served from the cache. */
  input: number;
  /** Per million completion tokens (reasoning tokens included). */
  output: number;
  /** Per million prompt tokens served from the cache; absent: billed as `input`. */
  cachedInput?: number;
}

export const KNOWN_PRICES: Readonly<Record<string, ModelPrice>> = {
  // https://openai.com/api/pricing/, read 2025-08.
  "gpt-5": { input: 1.25, cachedInput: 0.125, output: 10 },
  "gpt-5-mini": { input: 0.25, cachedInput: 0.025, output: 2 },
  "gpt-5-nano": { input: 0.05, cachedInput: 0.005, output: 0.4 },
  "gpt-4.1": { input: 2, cachedInput: 0.5, output: 8 },
  "gpt-4.1-mini": { input: 0.4, cachedInput: 0.1, output: 1.6 },
  "gpt-4.1-nano": { input: 0.1, cachedInput: 0.025, output: 0.4 },
  "gpt-4o": { input: 2.5, cachedInput: 1.25, output: 10 },
  "gpt-4o-mini": { input: 0.15, cachedInput: 0.075, output: 0.6 },
  "o3": { input: 2, cachedInput: 0.5, output: 8 },
  "o4-mini": { input: 1.1, cachedInput: 0.275, output: 4.4 },
  // https://www.anthropic.com/pricing (API), read 2025-06; cachedInput is the cache-read price.
  "claude-opus-4-20250514": { input: 15, cachedInput: 1.5, output: 75 },
  "claude-sonnet-4-20250514": { input: 3, cachedInput: 0.3, output: 15 },
  "claude-3-5-haiku-20241022": { input: 0.8, cachedInput: 0.08, output: 4 },
};
