/**
 * Comparing two Deno permission descriptors whole: a kept batch Worker
 * (host/engine_pool.ts) and a Worker started before the CLI loaded (prewarm.ts)
 * are used only for a spec that derives exactly their permissions.
 */

/**
 * The permission descriptor as a comparable text: keys sorted, and each list
 * sorted (Deno reads a list as a set), so two specs that derive the same
 * permissions get the same key and any difference gives another.
 */
export function permissionKey(permissions: Deno.PermissionOptionsObject): string {
  const entries = Object.entries(permissions)
    .filter(([, value]) => value !== undefined)
    .map(([name, value]) => [name, Array.isArray(value) ? value.map(String).sort() : value])
    // Plain code-unit order: the first localeCompare of a process loads ICU's collator
    // (docs/performance.md), on the start's critical path.
    .sort(([a], [b]) => (String(a) < String(b) ? -1 : String(a) > String(b) ? 1 : 0));
  return JSON.stringify(entries);
}
