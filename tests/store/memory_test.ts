import { DatabaseSync } from "node:sqlite";
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { migrate, MIGRATIONS } from "../../src/store/migrations.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "skiff-memory-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

Deno.test("memory: an entry keeps its commit and files; the same kind+subject is one entry, moved to the front", async () => {
  await using data = await tempDataDir();
  let clock = 1_000;
  const store = openStore(data.dir, { now: () => clock });
  try {
    const first = store.memory.remember("/repo", {
      kind: "command",
      subject: "tests",
      body: "deno task test",
      commit: "abc123",
      files: ["deno.json"],
    });
    clock = 2_000;
    store.memory.remember("/repo", { kind: "trap", subject: "worker", body: "needs the flag" });
    store.memory.remember("/other", { kind: "trap", subject: "x", body: "elsewhere" });
    assertEquals(store.memory.memories("/repo").map((m) => m.subject), ["worker", "tests"]);
    assertEquals(first.commit, "abc123");
    assertEquals(first.files, ["deno.json"]);
    assertEquals(first.created, 1_000);

    clock = 3_000;
    const again = store.memory.remember("/repo", {
      kind: "command",
      subject: "tests",
      body: "deno task test --parallel",
    });
    assertEquals(again.id, first.id);
    assertEquals(again.created, 1_000);
    assertEquals(again.updated, 3_000);
    assertEquals(store.memory.memories("/repo").map((m) => m.body), [
      "deno task test --parallel",
      "needs the flag",
    ]);
    assertEquals(store.memory.memories().length, 3);
    assert(store.memory.deleteMemory(first.id));
    assertEquals(store.memory.deleteMemory(first.id), false);
    assertEquals(store.memory.memory(first.id), undefined);
  } finally {
    store.close();
  }
});

Deno.test("memory: harness records per scope, newest first, filtered by kind, importance clamped", async () => {
  await using data = await tempDataDir();
  let clock = 10;
  const store = openStore(data.dir, { now: () => clock++ });
  try {
    const decision = store.memory.record("/repo", {
      kind: "decision",
      summary: "use SQLite",
      sourcePaths: ["src/store/store.ts"],
      evidenceRefs: ["issue 16"],
      importance: 4,
      sessionId: "ses_1",
    });
    store.memory.record("/repo", {
      kind: "handoff",
      summary: "next: docs",
      command: "deno task test",
    });
    store.memory.record("/elsewhere", { kind: "decision", summary: "not here" });
    assertEquals(decision.importance, 1);
    assertEquals(decision.sourcePaths, ["src/store/store.ts"]);
    assertEquals(decision.sessionId, "ses_1");
    assertEquals(store.memory.records("/repo").map((r) => r.summary), ["next: docs", "use SQLite"]);
    assertEquals(
      store.memory.records("/repo", { kinds: ["decision"] }).map((r) => r.summary),
      ["use SQLite"],
    );
    assertEquals(store.memory.records("/repo", { limit: 1 }).length, 1);
    assertEquals(store.memory.harnessRecord(decision.id)?.kind, "decision");
    assert(store.memory.deleteRecord(decision.id));
    assertEquals(store.memory.records("/repo").length, 1);
  } finally {
    store.close();
  }
});

Deno.test("memory: a database from before migration 9 gains the tables and keeps its sessions", async () => {
  await using data = await tempDataDir();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  migrate(db, MIGRATIONS.filter((m) => m.version < 9));
  db.exec(
    "INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at) VALUES ('ses_old', '/w', 'm', 'build', 1, 1)",
  );
  db.close();
  const store = openStore(data.dir);
  try {
    assertEquals(store.getSession("ses_old")?.workspace, "/w");
    assertEquals(store.memory.memories("/w"), []);
    store.memory.remember("/w", { kind: "fact", subject: "s", body: "b" });
    assertEquals(store.memory.memories("/w").length, 1);
  } finally {
    store.close();
  }
});

Deno.test("memory: rows from before repository ids are shown only where the repository at their path is older than them", async () => {
  await using data = await tempDataDir();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  migrate(db, MIGRATIONS.filter((m) => m.version < 11));
  const insert = db.prepare(
    `INSERT INTO memories (scope, kind, subject, body, files, created_at, updated_at)
     VALUES ('/r', 'fact', ?, ?, '[]', ?, ?)`,
  );
  insert.run("old", "from an earlier checkout", 4_000, 4_000);
  insert.run("mine", "from this repository", 6_000, 6_000);
  db.exec(
    `INSERT INTO harness_records (scope, kind, summary, importance, created_at)
     VALUES ('/r', 'decision', 'earlier', 0.7, 4000), ('/r', 'decision', 'this one', 0.7, 6000)`,
  );
  db.close();
  const store = openStore(data.dir, { now: () => 7_000 });
  try {
    const place = { root: "/r", repository: "git:1:2:5000", bornAt: 5_000 };
    assertEquals(store.memory.memories(place).map((m) => m.subject), ["mine"]);
    assertEquals(store.memory.records(place).map((r) => r.summary), ["this one"]);
    const hidden = store.memory.legacyMemories(place);
    assertEquals(hidden.memories.map((m) => m.subject), ["old"]);
    assertEquals(hidden.records.map((r) => r.summary), ["earlier"]);
    // Unknown creation time: none is shown, all are listed.
    const unknown = { root: "/r", repository: "git:1:2:-", bornAt: null };
    assertEquals(store.memory.memories(unknown), []);
    assertEquals(store.memory.legacyMemories(unknown).memories.length, 2);
    // Remembering the same subject replaces the adopted row instead of doubling it.
    store.memory.remember(place, { kind: "fact", subject: "mine", body: "updated" });
    assertEquals(store.memory.memories(place).map((m) => [m.body, m.repository]), [
      ["updated", "git:1:2:5000"],
    ]);
    // Another repository at the same path sees none of it.
    const other = { root: "/r", repository: "git:1:3:8000", bornAt: 8_000 };
    assertEquals(store.memory.memories(other), []);
    assertEquals(store.memory.memories().length, 2);
  } finally {
    store.close();
  }
});
