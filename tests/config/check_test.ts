/**
 * A config layer is checked without the schema only when the schema would
 * accept it unchanged (src/config/check.ts): every case here goes through both,
 * and whatever the short path admits, the schema admits and returns the same
 * (same keys, same order); everything else gets the schema's own answer.
 */
import { assert, assertEquals, assertRejects } from "../support/assert.ts";
import { acceptedWithoutSchema, checkConfigLayer } from "../../src/config/check.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { ConfigSchema } from "../../src/config/schema.ts";
import { ConfigError } from "../../src/config/errors.ts";

const URLS = [
  "http://localhost:8080/v1",
  "https://api.openai.com/v1",
  "HTTP://EXAMPLE.COM/V1",
  "Https://example.com",
  "http://127.0.0.1:11434/v1/",
  "https://[::1]:8443/v1",
  "https://user:secret@host.example/v1?x=1#y",
  " http://example.com",
  "http://example.com ",
  "http://exa\nmple.com",
  "http://exa\tmple.com/v1",
  "http://example.com/\r",
  "http:example.com",
  "https:/path",
  "http://",
  "https://",
  "http://a b",
  "http://example.com:99999",
  "http://%zz",
  "ftp://example.com",
  "file:///etc/passwd",
  "javascript:alert(1)",
  "ws://example.com",
  "example.com",
  "//example.com",
  "http://\u00a0example.com",
  "http://example.com\u00a0",
  "\ufeffhttp://example.com",
  "http://exämple.com/ü",
  "",
];

const LAYERS: Record<string, unknown>[] = [
  {},
  ...URLS.map((baseURL) => ({ provider: { baseURL } })),
  { provider: { model: "gpt-5", apiKey: "sk-1", baseURL: "http://localhost:1/v1" } },
  { provider: { apiKey: "k", model: "m" } },
  { provider: { model: "" } },
  { provider: { apiKey: "" } },
  { provider: { model: 5 } },
  { provider: { model: null } },
  { provider: { model: "m", maxRetries: 3 } },
  { provider: { model: "m", modle: "typo" } },
  { provider: {} },
  { provider: null },
  { provider: [] },
  { provider: "m" },
  { provider: { model: "m" }, maxTurns: 3 },
  { sandbox: { mode: "read-only" } },
  { sandbox: { addDirs: [""] } },
  { memory: { enabled: false } },
  // What the command-line flags set (--model, --sandbox, --sandbox-backend, --add-dir,
  // --no-memory), alone, together, in other orders, and near misses of each.
  { sandbox: { mode: "workspace-write" } },
  { sandbox: { mode: "full-access", backend: "landlock" } },
  { sandbox: { addDirs: ["../shared", "/tmp/x"], backend: "bwrap", mode: "read-only" } },
  { sandbox: { network: true, mode: "read-only" } },
  { sandbox: {} },
  { memory: {} },
  { memory: { enabled: true } },
  {
    memory: { enabled: false },
    sandbox: { addDirs: ["a"], mode: "read-only" },
    provider: { model: "m", baseURL: "http://localhost:1/v1" },
  },
  { sandbox: { mode: "write" } },
  { sandbox: { mode: "Read-Only" } },
  { sandbox: { mode: null } },
  { sandbox: { backend: "firejail" } },
  { sandbox: { backend: 1 } },
  { sandbox: { network: "yes" } },
  { sandbox: { addDirs: "a" } },
  { sandbox: { addDirs: [1] } },
  { sandbox: { addDirs: [] } },
  { sandbox: { addDir: ["a"] } },
  { sandbox: { env: ["HOME"] } },
  { sandbox: { mode: "read-only", limits: {} } },
  { sandbox: [] },
  { sandbox: null },
  { sandbox: "read-only" },
  { memory: { enabled: "no" } },
  { memory: { enabled: false, extra: 1 } },
  { memory: false },
  { memory: { enabled: false }, maxTurns: 2 },
  { $schema: "x" },
  { mistake: true },
];

/** What the schema itself says: the value it returns, or its error message. */
function bySchema(layer: Record<string, unknown>): { value?: string; error?: string } {
  try {
    return { value: JSON.stringify(validateConfig(ConfigSchema, layer, "here")) };
  } catch (error) {
    if (!(error instanceof ConfigError)) throw error;
    return { error: error.message };
  }
}

Deno.test("what the short path admits, the schema admits and returns unchanged", () => {
  let admitted = 0;
  for (const layer of LAYERS) {
    if (!acceptedWithoutSchema(layer)) continue;
    admitted++;
    const schema = bySchema(layer);
    assertEquals(schema.error, undefined, `the schema refuses ${JSON.stringify(layer)}`);
    assertEquals(JSON.parse(schema.value!), layer, JSON.stringify(layer));
  }
  // The cases that matter at every start take the short path.
  assert(admitted >= 10, `only ${admitted} layers took the short path`);
  assert(acceptedWithoutSchema({}));
  assert(acceptedWithoutSchema({ provider: { baseURL: "http://127.0.0.1:9/v1", model: "m" } }));
  // So do the flags' layers: `--sandbox read-only --add-dir ../x --no-memory`.
  assert(acceptedWithoutSchema({
    sandbox: { mode: "read-only", backend: "bwrap", addDirs: ["../x"] },
    memory: { enabled: false },
  }));
});

Deno.test("the short path returns sections and keys in the schema's order, as copies", async () => {
  const addDirs = ["b", "a"];
  const sandbox = { addDirs, network: false, backend: "auto", mode: "read-only" };
  const layer = { memory: { enabled: false }, sandbox, provider: { model: "m" } };
  const checked = await checkConfigLayer(layer, "flags");
  assertEquals(JSON.stringify(checked), bySchema(layer).value);
  assert(checked.sandbox !== sandbox && checked.sandbox?.addDirs !== addDirs, "not copied");
});

Deno.test("checkConfigLayer answers as the schema does, for every case", async () => {
  for (const layer of LAYERS) {
    const schema = bySchema(layer);
    if (schema.error !== undefined) {
      const error = await assertRejects(() => checkConfigLayer(layer, "here"), ConfigError);
      assertEquals(error.message, schema.error, JSON.stringify(layer));
    } else {
      const value = await checkConfigLayer(layer, "here");
      assertEquals(JSON.stringify(value), schema.value, JSON.stringify(layer));
    }
  }
});

Deno.test("the short path returns the provider keys in the schema's order, as a copy", async () => {
  const provider = { model: "m", apiKey: "k", baseURL: "https://example.com/v1" };
  const layer = { provider };
  const checked = await checkConfigLayer(layer, "environment");
  assertEquals(JSON.stringify(checked), bySchema(layer).value);
  assert(checked.provider !== provider, "the layer's own object was returned");
});

Deno.test("a bad value from the environment still gets the schema's message", async () => {
  const error = await assertRejects(
    () => checkConfigLayer({ provider: { baseURL: "ftp://example.com" } }, "environment"),
    ConfigError,
  );
  assert(error.message.includes("environment"), error.message);
  assert(error.message.includes("provider.baseURL"), error.message);
});
