/**
 * Saving the read ledger reads the stored one again only when another
 * connection has committed since: what it writes is what it wrote before,
 * also when another connection (another skiff process, `skiff undo`)
 * changed the ledger or deleted the session in between.
 */
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { StoreError } from "../../src/store/errors.ts";

async function withTwo(work: (a: Store, b: Store, id: string) => void) {
  const dir = await Deno.makeTempDir({ prefix: "skiff-reads-" });
  const a = openStore(dir);
  const b = openStore(dir);
  try {
    const { id } = a.createSession({ workspace: dir, model: "m", agent: "build" });
    work(a, b, id);
  } finally {
    a.close();
    b.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("a ledger entry another connection added is removed by the next save that lacks it", async () => {
  await withTwo((a, b, id) => {
    a.saveFileReads(id, [["/w/a.ts", "1"]]);
    a.saveFileReads(id, [["/w/a.ts", "1"]]); // unchanged: nothing read, nothing written
    b.saveFileReads(id, [["/w/a.ts", "1"], ["/w/b.ts", "2"]]);
    a.saveFileReads(id, [["/w/a.ts", "1"]]);
    assertEquals(b.getFileReads(id), [["/w/a.ts", "1"]]);
  });
});

Deno.test("a hash another connection changed is written back by the next save", async () => {
  await withTwo((a, b, id) => {
    a.saveFileReads(id, [["/w/a.ts", "1"], ["/w/b.ts", "2"]]);
    b.saveFileReads(id, [["/w/a.ts", "9"], ["/w/b.ts", "2"]]);
    a.saveFileReads(id, [["/w/a.ts", "1"], ["/w/b.ts", "2"]]);
    assertEquals(b.getFileReads(id), [["/w/a.ts", "1"], ["/w/b.ts", "2"]]);
    // And entries this connection removed stay removed.
    a.saveFileReads(id, [["/w/b.ts", "2"]]);
    assertEquals(b.getFileReads(id), [["/w/b.ts", "2"]]);
  });
});

Deno.test("saving the ledger of a session another connection deleted fails: no session", async () => {
  await withTwo((a, b, id) => {
    a.saveFileReads(id, [["/w/a.ts", "1"]]);
    assert(b.deleteSession(id));
    const error = assertThrows(() => a.saveFileReads(id, [["/w/a.ts", "1"]]), StoreError);
    assert(error.message.includes(`no session ${id}`), error.message);
  });
});

Deno.test("saving the ledger of a session this connection deleted fails: no session", async () => {
  await withTwo((a, _b, id) => {
    a.saveFileReads(id, [["/w/a.ts", "1"]]);
    assert(a.deleteSession(id));
    assertThrows(() => a.saveFileReads(id, [["/w/a.ts", "1"]]), StoreError, `no session ${id}`);
  });
});
