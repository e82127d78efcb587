/**
 * Checking one config layer against the schema, with zod and the schema
 * evaluated only when the layer holds something zod could refuse or change.
 * Most starts have no config file, at most the provider's address, key and
 * model in the environment, and a few flags (`--sandbox`, `--add-dir`…):
 * evaluating zod and building the schema for those cost the terminal side a
 * large part of its start (docs/performance.md, "Start-up"). The schema stays the one
 * set of rules: `acceptedWithoutSchema` admits only what the schema accepts
 * unchanged (tests/config/check_test.ts holds the two side by side), and
 * anything else, every error message included, comes from the schema.
 */
import type { Config } from "./schema.ts";
import { API_KEY_TEXT } from "./api_key_text.ts";
import { validateConfig } from "./validate.ts";

/** A test of one value the schema accepts and returns as it is. */
type Plain = (value: unknown) => boolean;

const nonEmptyString: Plain = (value) => typeof value === "string" && value !== "";
const oneOf = (...allowed: string[]): Plain => (value) =>
  typeof value === "string" && allowed.includes(value);
const isBoolean: Plain = (value) => typeof value === "boolean";

/**
 * A URL the schema's `z.url({ protocol: /^https?$/ })` accepts and returns
 * unchanged: `http://` or `https://` written out, parsed by the URL parser,
 * nothing the schema would trim or strip. Other values go to the schema.
 */
const plainHttpURL: Plain = (value) =>
  typeof value === "string" && /^https?:\/\//i.test(value) && value === value.trim() &&
  !/[\t\n\r]/.test(value) && URL.canParse(value);

/**
 * The sections a layer may set without the schema, and their keys, each in
 * the schema's order (the order of the keys it returns), with what each key
 * may hold: what the environment (the provider's address, key and model) and
 * the command-line flags (`--model`, `--sandbox`, `--sandbox-backend`,
 * `--add-dir`, `--no-memory`) set, in the values the schema takes as they are.
 */
const PLAIN_SECTIONS: readonly [string, readonly [string, Plain][]][] = [
  ["provider", [["baseURL", plainHttpURL], [
    "apiKey",
    (value) => typeof value === "string" && API_KEY_TEXT.test(value),
  ], ["model", nonEmptyString]]],
  ["sandbox", [
    ["mode", oneOf("read-only", "workspace-write", "full-access")],
    ["backend", oneOf("auto", "bwrap", "landlock")],
    ["network", isBoolean],
    ["addDirs", (value) => Array.isArray(value) && value.every(nonEmptyString)],
  ]],
  ["memory", [["enabled", isBoolean]]],
];

function isPlainRecord(value: unknown): value is Record<string, unknown> {
  return value !== null && typeof value === "object" && !Array.isArray(value) &&
    Object.getPrototypeOf(value) === Object.prototype;
}

/**
 * Whether `data` passes the schema as it is: an empty layer, or one that sets
 * only keys of `PLAIN_SECTIONS` with values their tests accept. Exported for
 * the test that checks it against the schema.
 */
export function acceptedWithoutSchema(data: Record<string, unknown>): boolean {
  const sections = new Map(PLAIN_SECTIONS);
  return Object.entries(data).every(([name, section]) => {
    const keys = sections.get(name);
    if (!keys || !isPlainRecord(section)) return false;
    const tests = new Map(keys);
    return Object.entries(section).every(([key, value]) => tests.get(key)?.(value) === true);
  });
}

/**
 * `data` as the schema returns it, or a `ConfigError` naming `source`. The
 * schema (and zod) is imported only when `data` needs it: evaluating them
 * costs the terminal side a measurable part of a start (docs/performance.md).
 */
export async function checkConfigLayer(
  data: Record<string, unknown>,
  source: string,
): Promise<Config> {
  if (acceptedWithoutSchema(data)) {
    // A copy in the schema's order, as the schema returns it.
    const checked: Record<string, unknown> = {};
    for (const [name, keys] of PLAIN_SECTIONS) {
      const given = data[name] as Record<string, unknown> | undefined;
      if (given === undefined) continue;
      const section: Record<string, unknown> = {};
      for (const [key] of keys) {
        if (key in given) section[key] = Array.isArray(given[key]) ? [...given[key]] : given[key];
      }
      checked[name] = section;
    }
    return checked as Config;
  }
  const { ConfigSchema } = await import("./schema.ts");
  return validateConfig(ConfigSchema, data, source);
}
