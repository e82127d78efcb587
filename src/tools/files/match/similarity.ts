/**
 * How alike two strings are, for the fuzzy replacers and for "did you mean"
 * hints. Levenshtein distance in linear memory (two rows), with an optional
 * ceiling so a hopeless comparison stops early instead of finishing the table.
 */

/**
 * Edit distance between `a` and `b`. When `limit` is given and the distance
 * is certainly above it, returns `limit + 1` as soon as that is known.
 */
export function levenshtein(a: string, b: string, limit = Infinity): number {
  if (a === b) return 0;
  // Keep the row over the shorter string: memory is O(min(|a|, |b|)).
  if (a.length < b.length) [a, b] = [b, a];
  if (b.length === 0) return a.length;
  if (a.length - b.length > limit) return limit + 1;
  let previous = new Uint32Array(b.length + 1);
  let current = new Uint32Array(b.length + 1);
  for (let j = 0; j <= b.length; j++) previous[j] = j;
  for (let i = 1; i <= a.length; i++) {
    current[0] = i;
    let rowMin = i;
    const ca = a.charCodeAt(i - 1);
    for (let j = 1; j <= b.length; j++) {
      const cost = ca === b.charCodeAt(j - 1) ? 0 : 1;
      const value = Math.min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost);
      current[j] = value;
      if (value < rowMin) rowMin = value;
    }
    if (rowMin > limit) return limit + 1;
    [previous, current] = [current, previous];
  }
  return previous[b.length];
}

/** 1 for equal strings, 0 for nothing in common: 1 - distance / longer length. */
export function similarity(a: string, b: string): number {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return 1;
  return 1 - levenshtein(a, b) / longest;
}

/**
 * True when `similarity(a, b) >= threshold`, computed with a distance ceiling
 * so clearly different strings cost little.
 */
export function similarEnough(a: string, b: string, threshold: number): boolean {
  const longest = Math.max(a.length, b.length);
  if (longest === 0) return true;
  const allowed = Math.floor((1 - threshold) * longest + 1e-9);
  return levenshtein(a, b, allowed) <= allowed;
}

/**
 * Similarity of two blocks of lines. Same line count: lines are compared
 * pairwise and weighted by length (cheap, and a wrong line counts where it
 * is). Different counts: the blocks are compared as whole texts.
 */
export function blockSimilarity(a: string[], b: string[]): number {
  if (a.length === b.length) {
    let distance = 0;
    let total = 0;
    for (let i = 0; i < a.length; i++) {
      distance += levenshtein(a[i], b[i]);
      total += Math.max(a[i].length, b[i].length);
    }
    return total === 0 ? 1 : 1 - distance / total;
  }
  const left = a.join("\n");
  const right = b.join("\n");
  // Whole-block distance is quadratic; past this size a guess would cost
  // seconds, so such blocks simply do not count as similar.
  if (left.length * right.length > BLOCK_COMPARE_MAX_CELLS) return 0;
  return similarity(left, right);
}

/** The largest whole-block comparison (characters × characters) blockSimilarity makes. */
export const BLOCK_COMPARE_MAX_CELLS = 25_000_000;
