/**
 * Settings kept per model under the provider's `models` in the config are
 * keyed by a model id or by a pattern in which `*` matches any text
 * (`"gpt-5*"`, `"deepseek/*:free"`). This is the one rule for which entry a
 * model gets, so its wire protocol and its dialect settings never disagree.
 */

/**
 * The entry for `model` in `entries`: the one keyed by its id, else the one
 * whose pattern (`*` any text, every other character itself) matches it,
 * the longest pattern when several do; `undefined` when none does.
 */
export function modelEntry<T>(model: string, entries: Record<string, T> = {}): T | undefined {
  // An own key only: a model named "constructor" has no entry from Object.prototype.
  if (Object.hasOwn(entries, model)) return entries[model];
  let best: string | undefined;
  for (const pattern of Object.keys(entries)) {
    if (!pattern.includes("*") || (best !== undefined && pattern.length <= best.length)) continue;
    if (patternMatches(pattern, model)) best = pattern;
  }
  return best === undefined ? undefined : entries[best];
}

function patternMatches(pattern: string, model: string): boolean {
  const source = pattern.split("*").map((part) => part.replace(/[.+?^${}()|[\]\\]/g, "\\$&"));
  return new RegExp(`^${source.join(".*")}$`, "s").test(model);
}
