/**
 * Merging config layers. Objects merge key by key, a later layer winning;
 * anything else (strings, numbers, lists) is replaced whole.
 */

export function isPlainObject(value: unknown): value is Record<string, unknown> {
  if (value === null || typeof value !== "object" || Array.isArray(value)) return false;
  const proto = Object.getPrototypeOf(value);
  return proto === Object.prototype || proto === null;
}

/** A new object: `over` merged onto `base`. Neither input is changed. */
export function deepMerge<T>(base: T, over: unknown): T {
  if (over === undefined) return base;
  if (!isPlainObject(base) || !isPlainObject(over)) return over as T;
  const out: Record<string, unknown> = { ...base };
  for (const [key, value] of Object.entries(over)) {
    if (value === undefined) continue;
    setOwn(out, key, Object.hasOwn(out, key) ? deepMerge(out[key], value) : value);
  }
  return out as T;
}

/** A copy without `undefined` values, so an unset flag never overrides a file. */
export function withoutUndefined<T>(value: T): T {
  if (Array.isArray(value)) return value.map(withoutUndefined) as T;
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [key, inner] of Object.entries(value)) {
    if (inner !== undefined) setOwn(out, key, withoutUndefined(inner));
  }
  return out as T;
}

/** Plain assignment, except that a key named `__proto__` stays an ordinary key. */
function setOwn(target: Record<string, unknown>, key: string, value: unknown): void {
  Object.defineProperty(target, key, {
    value,
    enumerable: true,
    writable: true,
    configurable: true,
  });
}
