/**
 * The permission rule table's vocabulary: actions, the config shape
 * (`permission` in skiff.json), layers, and the wildcard matcher every rule
 * uses. Pure: no I/O, so every other policy module and every test builds on it.
 */

export type Action = "allow" | "ask" | "deny";

/** Per key: one action, or a map of wildcard pattern → action (order kept). */
export type RuleValue = Action | Record<string, Action>;

/** The `permission` object of a config file, an agent or the command line. */
export type PermissionConfig = Record<string, RuleValue>;

/** Where a rule came from, in precedence order (later wins among allow/ask). */
export type LayerName =
  | "defaults"
  | "claude-user"
  | "global"
  | "claude-project"
  | "project"
  | "agent"
  | "flags"
  | "session";

export interface RuleLayer {
  name: LayerName;
  permission: PermissionConfig;
}

/** One flattened rule: `bash(git diff *) → allow` from the project layer. */
export interface Rule {
  layer: LayerName;
  /** Permission key; may itself hold wildcards (`github_*` for MCP tools). */
  key: string;
  pattern: string;
  action: Action;
}

export const ACTIONS: readonly Action[] = ["allow", "ask", "deny"];

export function isAction(value: unknown): value is Action {
  return typeof value === "string" && (ACTIONS as readonly string[]).includes(value);
}

/** `bash(git diff *) → allow [project]`, for reasons shown to people and the model. */
export function describeRule(rule: Rule): string {
  const subject = rule.pattern === "*" ? rule.key : `${rule.key}(${rule.pattern})`;
  return `${subject} → ${rule.action} [${rule.layer}]`;
}

/** Every rule of a layer, in the order written. */
export function flattenLayer(layer: RuleLayer): Rule[] {
  const rules: Rule[] = [];
  for (const [key, value] of Object.entries(layer.permission)) {
    if (typeof value === "string") {
      rules.push({ layer: layer.name, key, pattern: "*", action: value });
      continue;
    }
    for (const [pattern, action] of Object.entries(value)) {
      rules.push({ layer: layer.name, key, pattern, action });
    }
  }
  return rules;
}

const regexCache = new Map<string, RegExp>();

function wildcardRegex(pattern: string): RegExp {
  let cached = regexCache.get(pattern);
  if (cached) return cached;
  let source = "";
  for (const char of pattern) {
    if (char === "*") source += "[\\s\\S]*";
    else if (char === "?") source += "[\\s\\S]";
    else source += char.replace(/[.+^${}()|[\]\\/-]/g, "\\$&");
  }
  // "git *" also covers bare "git": the trailing " *" is optional.
  if (pattern.endsWith(" *")) source = source.slice(0, -" [\\s\\S]*".length) + "(?: [\\s\\S]*)?";
  cached = new RegExp(`^${source}$`);
  regexCache.set(pattern, cached);
  return cached;
}

/**
 * Whole-string wildcard match: `*` is any run of characters (slashes and
 * spaces included), `?` exactly one. A pattern ending in ` *` also matches
 * the text without that tail, so `git *` matches `git`.
 */
export function wildcardMatch(pattern: string, text: string): boolean {
  if (pattern === "*") return true;
  // No wildcard: the pattern's regex would match this text alone.
  if (!pattern.includes("*") && !pattern.includes("?")) return pattern === text;
  return wildcardRegex(pattern).test(text);
}

/** The stricter of two actions: deny > ask > allow. */
export function stricter(a: Action, b: Action): Action {
  return ACTIONS.indexOf(a) >= ACTIONS.indexOf(b) ? a : b;
}

/** Add one rule to a permission object, keeping what is already there. */
export function mergeRule(
  into: PermissionConfig,
  key: string,
  pattern: string,
  action: Action,
): PermissionConfig {
  const current = into[key];
  if (current === undefined) {
    into[key] = pattern === "*" ? action : { [pattern]: action };
  } else if (typeof current === "string") {
    into[key] = pattern === "*" ? action : { "*": current, [pattern]: action };
  } else {
    // Re-inserting moves the pattern to the end, so it is the last match.
    delete current[pattern];
    current[pattern] = action;
  }
  return into;
}
