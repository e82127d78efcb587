/**
 * The reasoning efforts vendors document, lowest to highest: one list for
 * the config's schema, the `--reasoning-effort` flag and the provider
 * (src/provider/dialects/reasoning_effort.ts), which sends it.
 */
export const REASONING_EFFORTS = ["none", "minimal", "low", "medium", "high", "xhigh"] as const;
export type ReasoningEffort = typeof REASONING_EFFORTS[number];
