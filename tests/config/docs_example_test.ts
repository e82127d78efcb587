import { assertEquals } from "../support/assert.ts";
import { parseJsonc } from "../../src/config/jsonc.ts";
import { validateConfig } from "../../src/config/validate.ts";
import { ConfigSchema } from "../../src/config/schema.ts";

Deno.test("config: the complete example in docs/config.md is a valid config", async () => {
  const doc = await Deno.readTextFile(new URL("../../docs/config.md", import.meta.url));
  const block = doc.match(/```jsonc\n([\s\S]*?)```/);
  if (!block) throw new Error("docs/config.md lost its ```jsonc example");
  const config = validateConfig(ConfigSchema, parseJsonc(block[1]), "docs/config.md");
  assertEquals(config.mcp?.github, { enabled: false });
  // Every top-level key appears in the example.
  assertEquals(Object.keys(config).sort(), Object.keys(ConfigSchema.shape).sort());
});
