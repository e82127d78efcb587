/**
 * The small wildcard language of tool toggles: `*` matches any run of
 * characters, `?` exactly one, everything else itself. Whole-name match.
 */

export function wildcardToRegExp(pattern: string): RegExp {
  const escaped = pattern.replace(/[.+^${}()|[\]\\]/g, "\\$&")
    .replace(/\*/g, ".*")
    .replace(/\?/g, ".");
  return new RegExp(`^${escaped}$`);
}

export function wildcardMatch(pattern: string, name: string): boolean {
  return wildcardToRegExp(pattern).test(name);
}
