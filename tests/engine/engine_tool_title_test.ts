/**
 * Which sessions `runTool` titles "skiff tool: …": those of `skiff tool`
 * alone. The chat runs `!command` and `@file` through runTool too, and its
 * session (titled by its first prompt, or untitled until then) was renamed
 * "skiff tool: bash, read" in `skiff sessions list` and the resume picker.
 */
import { assertEquals } from "../support/assert.ts";
import { Engine } from "../../src/engine/engine.ts";
import type { EngineIO } from "../../src/engine/types.ts";
import { openStore } from "../../src/store/store.ts";
import { testSpec } from "./_spec.ts";

const io: EngineIO = { event: () => {}, ask: () => Promise.resolve("deny") };

async function titleAfterRead(agent: string): Promise<string> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-tool-title-" }));
  try {
    for (const dir of ["work", "data", "config"]) await Deno.mkdir(`${root}/${dir}`);
    await Deno.writeTextFile(`${root}/work/a.txt`, "hello\n");
    const spec = testSpec({
      workspace: `${root}/work`,
      dataDir: `${root}/data`,
      configDir: `${root}/config`,
      agent,
    });
    const store = openStore(spec.dataDir);
    const engine = new Engine(spec, io, store);
    try {
      const { id } = await engine.open();
      const result = await engine.runTool("read", { file_path: "a.txt" });
      assertEquals(result.ok, true);
      return store.getSession(id)!.title;
    } finally {
      await engine.close();
      store.close();
    }
  } finally {
    await Deno.remove(root, { recursive: true });
  }
}

Deno.test("runTool: a skiff tool session is titled by the tools it ran", async () => {
  assertEquals(await titleAfterRead("tool"), "skiff tool: read");
});

Deno.test("runTool: a chat session's @file read leaves its title alone", async () => {
  assertEquals(await titleAfterRead("build"), "");
});
