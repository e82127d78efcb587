/**
 * What a request cost: its tokens times the model's price, the price taken
 * from the config (`models.<name>.cost`) or else the known table
 * (prices.ts). A model with neither has no cost, only tokens: skiff never
 * reports a figure it made up.
 */
import type { Usage } from "../contracts/events.ts";
import { KNOWN_PRICES, type ModelPrice } from "./prices.ts";

export type { ModelPrice };

/** `models` as the config holds it: only `cost` is read here. */
export type ModelsConfig = Record<string, { cost?: ModelPrice }> | undefined;

/** Where a price came from, for messages that say why a figure is what it is. */
export interface KnownPrice {
  price: ModelPrice;
  source: "config" | "table";
}

/** The model's price: the config's first, then the known table; undefined when neither has it. */
export function priceFor(model: string, models?: ModelsConfig): KnownPrice | undefined {
  const configured = models?.[model]?.cost;
  if (configured) return { price: configured, source: "config" };
  const known = Object.hasOwn(KNOWN_PRICES, model) ? KNOWN_PRICES[model] : undefined;
  return known ? { price: known, source: "table" } : undefined;
}

/**
 * US dollars for `usage` at `price`. Cached prompt tokens are part of
 * `input_tokens` (as OpenAI counts them) and are billed at `cachedInput`
 * when the price names one.
 */
export function costOf(usage: Usage, price: ModelPrice): number {
  const cached = Math.min(usage.cached_input_tokens ?? 0, usage.input_tokens);
  const fresh = usage.input_tokens - cached;
  const dollars = fresh * price.input + cached * (price.cachedInput ?? price.input) +
    usage.output_tokens * price.output;
  return dollars / 1_000_000;
}

/**
 * `usage` with its cost added when the price is known; unchanged otherwise,
 * and when the endpoint reported its own charge (what was billed beats what
 * a table says).
 */
export function withCost(usage: Usage, price: ModelPrice | undefined): Usage {
  if (usage.cost_usd !== undefined) return usage;
  return price ? { ...usage, cost_usd: costOf(usage, price) } : usage;
}

/** "$0.0123" — enough digits for a cheap request, cents for a dear one. */
export function formatUsd(dollars: number): string {
  if (dollars === 0) return "$0";
  if (dollars < 0.0001) return "<$0.0001";
  if (dollars >= 1) return `$${dollars.toFixed(2)}`;
  return `$${dollars.toPrecision(3).replace(/0+$/, "").replace(/\.$/, "")}`;
}
