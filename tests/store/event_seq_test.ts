/**
 * The event log numbers a session's events 1, 2, 3… in the order they were
 * appended, now from a number the store keeps instead of a scan of the log:
 * the same rows as before, also when another connection or process appends
 * to the same session in between, after a rolled-back transaction, and with
 * the same error for a session that is gone.
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertThrows } from "../support/assert.ts";
import { openStore, type Store } from "../../src/store/store.ts";
import { EventLog } from "../../src/store/event_log.ts";
import { Statements } from "../../src/store/_rows.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";
import { StoreError } from "../../src/store/errors.ts";
import { makeEvent, type SkiffEvent } from "../../src/contracts/events.ts";

const STORE_MODULE = new URL("../../src/store/store.ts", import.meta.url).href;
const EVENTS_MODULE = new URL("../../src/contracts/events.ts", import.meta.url).href;

function turn(sessionId: string, n: number): SkiffEvent {
  return makeEvent("turn.started", sessionId, { turn: n }) as SkiffEvent;
}

/** (seq, turn) of every stored event of the session, in seq order, read apart from any store. */
function storedRows(dir: string, sessionId: string): [number, number][] {
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
  try {
    return db.prepare("SELECT seq, payload FROM events WHERE session_id = ? ORDER BY seq")
      .all(sessionId)
      .map((row) => [row.seq as number, JSON.parse(row.payload as string).turn as number]);
  } finally {
    db.close();
  }
}

async function withStore(work: (store: Store, dir: string) => Promise<void> | void) {
  const dir = await Deno.makeTempDir({ prefix: "skiff-seq-" });
  const store = openStore(dir);
  try {
    await work(store, dir);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
}

Deno.test("events are numbered 1..n in append order, per session", async () => {
  await withStore((store, dir) => {
    const a = store.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
    const b = store.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
    for (let n = 0; n < 5; n++) {
      store.appendEvent(turn(a, n));
      if (n % 2 === 0) store.appendEvent(turn(b, 100 + n));
    }
    assertEquals(storedRows(dir, a), [[1, 0], [2, 1], [3, 2], [4, 3], [5, 4]]);
    assertEquals(storedRows(dir, b), [[1, 100], [2, 102], [3, 104]]);
    assertEquals(store.listEvents(a).map((event) => (event as { turn: number }).turn), [
      0,
      1,
      2,
      3,
      4,
    ]);
  });
});

Deno.test("a second connection appending to the same session in between loses nothing and keeps the order", async () => {
  await withStore((store, dir) => {
    const id = store.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
    const other = openStore(dir);
    try {
      store.appendEvent(turn(id, 1));
      store.appendEvent(turn(id, 2));
      other.appendEvent(turn(id, 3));
      other.appendEvent(turn(id, 4));
      store.appendEvent(turn(id, 5)); // its kept number (3) is taken now
      other.appendEvent(turn(id, 6)); // and so is the other's (5)
      store.appendEvent(turn(id, 7));
    } finally {
      other.close();
    }
    assertEquals(storedRows(dir, id), [[1, 1], [2, 2], [3, 3], [4, 4], [5, 5], [6, 6], [7, 7]]);
  });
});

Deno.test("two processes appending to one session at once: every event stored once, each process's in its order", async () => {
  await withStore(async (store, dir) => {
    const id = store.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
    const perProcess = 150;
    const script = `import { openStore } from ${JSON.stringify(STORE_MODULE)};
      import { makeEvent } from ${JSON.stringify(EVENTS_MODULE)};
      const [dir, id, base, count] = Deno.args;
      const store = openStore(dir);
      for (let n = 0; n < Number(count); n++) {
        store.appendEvent(makeEvent("turn.started", id, { turn: Number(base) + n }));
        if (n % 7 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
      }
      store.close();`;
    const children = [0, 1000].map((base) =>
      new Deno.Command(Deno.execPath(), {
        args: ["eval", "--quiet", script, dir, id, String(base), String(perProcess)],
        stdout: "piped",
        stderr: "piped",
      }).output()
    );
    // This process appends too, in between.
    for (let n = 0; n < perProcess; n++) {
      store.appendEvent(turn(id, 2000 + n));
      if (n % 5 === 0) await new Promise((resolve) => setTimeout(resolve, 1));
    }
    for (const output of await Promise.all(children)) {
      assert(output.success, new TextDecoder().decode(output.stderr));
    }
    const rows = storedRows(dir, id);
    assertEquals(rows.map(([seq]) => seq), rows.map((_, index) => index + 1), "1..n, no gap");
    for (const base of [0, 1000, 2000]) {
      const own = rows.map(([, n]) => n).filter((n) => n >= base && n < base + perProcess);
      assertEquals(own, Array.from({ length: perProcess }, (_, n) => base + n), `from ${base}`);
    }
  });
});

Deno.test("an event appended in a transaction that rolls back leaves no gap in the numbers", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-seq-" });
  const setup = openStore(dir);
  const id = setup.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
  setup.close();
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
  try {
    const sql = new Statements(db);
    const log = new EventLog(sql, Date.now, () => true);
    log.append(turn(id, 1));
    assertThrows(() =>
      sql.transaction(() => {
        log.append(turn(id, 2));
        throw new Error("rolled back");
      })
    );
    log.append(turn(id, 3));
    log.append(turn(id, 4));
  } finally {
    db.close();
  }
  assertEquals(storedRows(dir, id), [[1, 1], [2, 3], [3, 4]]);
  await Deno.remove(dir, { recursive: true });
});

Deno.test("appending to a session deleted by another connection fails as before: no session", async () => {
  await withStore((store, dir) => {
    const id = store.createSession({ workspace: "/w", model: "m", agent: "build" }).id;
    store.appendEvent(turn(id, 1));
    const other = openStore(dir);
    try {
      assert(other.deleteSession(id));
    } finally {
      other.close();
    }
    const error = assertThrows(() => store.appendEvent(turn(id, 2)), StoreError);
    assert(error.message.includes(`no session ${id}`), error.message);
    // And one never seen by this connection.
    assertThrows(() => store.appendEvent(turn("ses_none", 1)), StoreError, "no session ses_none");
  });
});
