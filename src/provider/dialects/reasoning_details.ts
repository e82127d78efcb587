/**
 * OpenRouter's `reasoning_details`: structured reasoning blocks (text,
 * summaries, encrypted data, signatures) that must go back unchanged with the
 * assistant message for models that need them. They stream in pieces, each
 * naming the block it continues by `index`; the pieces are joined into whole
 * blocks here (https://openrouter.ai/docs/use-cases/reasoning-tokens).
 */

/** One piece or block; only `index` and the text fields are read, the rest is kept as it came. */
export type ReasoningDetail = Record<string, unknown> & { index?: number; type?: string };

/** The fields a block's pieces continue. */
const CONTINUED = ["text", "summary", "data"] as const;

/** Streamed pieces → whole blocks, in the order their first piece came. */
export function mergeReasoningDetails(pieces: readonly ReasoningDetail[]): ReasoningDetail[] {
  const blocks: ReasoningDetail[] = [];
  const byIndex = new Map<string, ReasoningDetail>();
  for (const piece of pieces) {
    if (piece === null || typeof piece !== "object") continue;
    // A piece without an index stands alone.
    const key = typeof piece.index === "number" ? `${piece.index}:${piece.type ?? ""}` : undefined;
    const block = key === undefined ? undefined : byIndex.get(key);
    if (!block) {
      const fresh = { ...piece };
      blocks.push(fresh);
      if (key !== undefined) byIndex.set(key, fresh);
      continue;
    }
    for (const [name, value] of Object.entries(piece)) {
      const continued = (CONTINUED as readonly string[]).includes(name) &&
        typeof value === "string" && typeof block[name] === "string";
      block[name] = continued ? (block[name] as string) + value : value ?? block[name];
    }
  }
  return blocks;
}
