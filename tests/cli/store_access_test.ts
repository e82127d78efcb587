import { assertEquals, assertRejects, assertThrows } from "../support/assert.ts";
import { withStore } from "../../src/cli/store_access.ts";
import type { Store } from "../../src/store/store.ts";

/** Whether `store` was closed: a closed store refuses every query. */
function closed(store: Store): boolean {
  try {
    store.getSession("none");
    return false;
  } catch {
    return true;
  }
}

Deno.test("withStore closes the store after the work, whether it returns, throws or rejects", async () => {
  const dataDir = await Deno.makeTempDir();
  try {
    let seen: Store | undefined;
    assertEquals(
      withStore((store) => (seen = store, store.getSession("none") ?? "none"), dataDir),
      "none",
    );
    assertEquals(closed(seen!), true);

    assertThrows(() =>
      withStore((store) => {
        seen = store;
        throw new Error("boom");
      }, dataDir)
    );
    assertEquals(closed(seen!), true);

    let openDuringWork = false;
    await withStore(async (store) => {
      seen = store;
      await Promise.resolve();
      openDuringWork = !closed(store);
    }, dataDir);
    assertEquals([openDuringWork, closed(seen!)], [true, true]);

    await assertRejects(() =>
      withStore(async (store) => {
        seen = store;
        await Promise.resolve();
        throw new Error("later");
      }, dataDir)
    );
    assertEquals(closed(seen!), true);
  } finally {
    await Deno.remove(dataDir, { recursive: true });
  }
});

Deno.test("withStore opens the data folder SKIFF_DATA_DIR names", async () => {
  const dataDir = await Deno.makeTempDir();
  const before = Deno.env.get("SKIFF_DATA_DIR");
  try {
    Deno.env.set("SKIFF_DATA_DIR", dataDir);
    assertEquals(withStore((_store, at) => at), dataDir);
    assertEquals(Deno.statSync(`${dataDir}/skiff.db`).isFile, true);
  } finally {
    if (before === undefined) Deno.env.delete("SKIFF_DATA_DIR");
    else Deno.env.set("SKIFF_DATA_DIR", before);
    await Deno.remove(dataDir, { recursive: true });
  }
});
