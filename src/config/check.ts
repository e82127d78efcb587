/**
 * Checking one config layer against the schema, with zod and the schema
 * evaluated only when the layer holds something zod could refuse or change.
 * Most starts have no config file and no flag that sets a config key, and at
 * most the provider's address, key and model in the environment: evaluating
 * zod and building the schema for those cost the terminal side a large part
 * of its start (docs/performance.md, "Start-up"). The schema stays the one
 * set of rules: `acceptedWithoutSchema` admits only what the schema accepts
 * unchanged (tests/config/check_test.ts holds the two side by side), and
 * anything else, every error message included, comes from the schema.
 */
import type { Config } from "./schema.ts";
import { validateConfig } from "./validate.ts";

/**
 * The provider keys a layer may set without the schema, in the schema's order
 * (the order of the keys it returns): strings it accepts as they are.
 */
const PLAIN_PROVIDER_KEYS = ["baseURL", "apiKey", "model"];

/**
 * A URL the schema's `z.url({ protocol: /^https?$/ })` accepts and returns
 * unchanged: `http://` or `https://` written out, parsed by the URL parser,
 * nothing the schema would trim or strip. Other values go to the schema.
 */
function plainHttpURL(value: string): boolean {
  return /^https?:\/\//i.test(value) && value === value.trim() && !/[\t\n\r]/.test(value) &&
    URL.canParse(value);
}

/**
 * Whether `data` passes the schema as it is: an empty layer, or one that sets
 * only the provider's `apiKey`, `model` (non-empty strings) and `baseURL` (a
 * plain http(s) URL). Exported for the test that checks it against the schema.
 */
export function acceptedWithoutSchema(data: Record<string, unknown>): boolean {
  const keys = Object.keys(data);
  if (keys.length === 0) return true;
  if (keys.length !== 1 || keys[0] !== "provider") return false;
  const provider = data.provider;
  if (provider === null || typeof provider !== "object" || Array.isArray(provider)) return false;
  if (Object.getPrototypeOf(provider) !== Object.prototype) return false;
  return Object.entries(provider).every(([key, value]) =>
    PLAIN_PROVIDER_KEYS.includes(key) && typeof value === "string" && value !== "" &&
    (key !== "baseURL" || plainHttpURL(value))
  );
}

/**
 * `data` as the schema returns it, or a `ConfigError` naming `source`. The
 * schema (and zod) is imported only when `data` needs it.
 */
export async function checkConfigLayer(
  data: Record<string, unknown>,
  source: string,
): Promise<Config> {
  if (acceptedWithoutSchema(data)) {
    if (data.provider === undefined) return {};
    const given = data.provider as Record<string, string>;
    const provider: Record<string, string> = {};
    for (const key of PLAIN_PROVIDER_KEYS) if (key in given) provider[key] = given[key];
    return { provider };
  }
  const { ConfigSchema } = await import("./schema.ts");
  return validateConfig(ConfigSchema, data, source);
}
