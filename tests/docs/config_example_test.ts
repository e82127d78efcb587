/**
 * docs/config.md's complete example is a config a user can paste: it loads
 * without a problem, its key is one a request can carry, and its `maxCost`
 * has the price it needs (a run with it would be refused otherwise).
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { loadConfig } from "../../src/config/load.ts";
import { priceFor } from "../../src/provider/cost.ts";

const DOC = new URL("../../docs/config.md", import.meta.url);

/** The first jsonc block under "## A complete example". */
async function completeExample(): Promise<string> {
  const text = await Deno.readTextFile(DOC);
  const section = text.slice(text.indexOf("## A complete example"));
  const block = section.match(/```jsonc\n([\s\S]*?)\n```/);
  assert(block, "docs/config.md has no jsonc block under 'A complete example'");
  return block[1];
}

Deno.test("docs/config.md's complete example loads as written, and its maxCost has a price", async () => {
  const home = await Deno.makeTempDir();
  try {
    const configDir = path.join(home, "config");
    const workspace = path.join(home, "work");
    await Deno.mkdir(configDir);
    await Deno.mkdir(workspace);
    await Deno.writeTextFile(path.join(configDir, "config.json"), await completeExample());
    const loaded = await loadConfig({ workspace, env: { SKIFF_CONFIG_DIR: configDir }, home });
    assertEquals(loaded.files, [path.join(configDir, "config.json")]);
    const { config } = loaded;
    assert(config.provider?.model, "the example sets no model");
    assert(config.maxCost !== undefined, "the example no longer shows maxCost");
    assert(
      priceFor(config.provider.model, config.models),
      `maxCost is set but ${config.provider.model} has no price: a run would be refused`,
    );
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("a key with a character no header carries is refused when the config is read, naming where it came from", async () => {
  const home = await Deno.makeTempDir();
  try {
    const env = { SKIFF_CONFIG_DIR: path.join(home, "none"), OPENAI_API_KEY: "sk-abc…def" };
    const error = await loadConfig({ workspace: home, env, home }).then(
      () => undefined,
      (thrown: Error) => thrown,
    );
    assert(error, "a key holding … was accepted");
    assert(error.message.includes("OPENAI_API_KEY"), error.message);
    assert(error.message.includes("U+2026"), error.message);
    assertEquals((error as { exitCode?: number }).exitCode, 2);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});
