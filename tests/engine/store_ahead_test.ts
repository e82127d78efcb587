/**
 * The store the pre-started Worker opens while it waits for its spec
 * (src/engine/handle.ts): the engine of the same data folder takes it, once; one
 * opened for another folder is closed; a folder that cannot be opened leaves
 * the failure to the engine's own opening.
 */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { openStoreAhead, storeFor } from "../../src/engine/handle.ts";

Deno.test("openStoreAhead: the same folder's engine takes the store once; another's closes it", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-store-ahead-" });
  const opened = [];
  try {
    const early = openStoreAhead(`${root}/a`);
    assert(early, "the store opens");
    const taken = storeFor(`${root}/a`);
    assert(taken === early, "the store opened ahead is the one taken");
    const again = storeFor(`${root}/a`);
    opened.push(taken, again);
    assert(again !== early, "taken once: the next start opens its own");

    const unused = openStoreAhead(`${root}/a`)!;
    const other = storeFor(`${root}/b`);
    opened.push(other);
    // Opened for another folder: closed, so it answers nothing more.
    assertThrows(() => unused.getSession("ses_none"));
    assertEquals(other.getSession("ses_none"), undefined);
  } finally {
    for (const store of opened) store.close();
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("openStoreAhead: a folder that cannot be opened is left to the engine's own opening", async () => {
  const root = await Deno.makeTempDir({ prefix: "skiff-store-ahead-" });
  try {
    await Deno.writeTextFile(`${root}/file`, "not a folder");
    assertEquals(openStoreAhead(`${root}/file/data`), undefined);
    let failure: unknown;
    try {
      storeFor(`${root}/file/data`).close();
    } catch (error) {
      failure = error;
    }
    assert(failure instanceof Error, "the engine's opening meets the failure itself");
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
