/**
 * The tools offered to a model with a small context window. All 21 schemas
 * of a session cost ~23k characters (~5.9k tokens counted as bytes/4, ~9k by
 * skiff's own cautious estimate): more than an 8k window holds beside a reply.
 * Shortening every description would still leave the parameter schemas,
 * most of the cost, and blunt the words the model reads to call them right;
 * so a small window gets fewer tools, each whole: the ones a coding turn
 * needs (run, read, write, edit, find). The others stay executable by the
 * same rules; they are only not offered.
 */

/** A window below this many tokens gets the core tools only. */
export const SMALL_WINDOW_TOKENS = 16_384;

/** The tools kept in a small window, in the order they are offered. */
export const CORE_TOOLS: readonly string[] = [
  "bash",
  "read",
  "write",
  "edit",
  "grep",
  "glob",
  "list",
];

/** `tools` as offered to a model whose window is `window` tokens. */
export function toolsForWindow<T extends { name: string }>(
  tools: readonly T[],
  window: number,
): T[] {
  if (window >= SMALL_WINDOW_TOKENS) return [...tools];
  const core = tools.filter((tool) => CORE_TOOLS.includes(tool.name));
  // An agent that allows none of them keeps what it was given: fewer tools, never none.
  return core.length ? core : [...tools];
}
