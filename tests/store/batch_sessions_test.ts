/**
 * Every session a batch task ran in stays on record (migration 10), so
 * `skiff undo --batch` reaches the ones `--resume` replaced as the task's
 * latest; batches recorded before the migration keep their one session.
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { migrate, MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "skiff-store-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** A clock that moves one millisecond a call, so each start has its own time. */
function ticking(start = 1_000) {
  let at = start;
  return () => at++;
}

const session = { workspace: "/w", model: "m", agent: "build" };

Deno.test("batches: a task run again keeps each session it ran in, the newest listed first", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir, { now: ticking() });
  try {
    const batch = store.batches.create("{}", null, ["a", "b"]);
    const [a1, b1, a2] = [1, 2, 3].map(() => store.createSession(session));
    store.batches.started(batch, "a", a1.id);
    store.batches.started(batch, "b", b1.id);
    store.batches.ended(batch, "a", "pending", 130, "interrupted");
    store.batches.started(batch, "a", a2.id);

    assertEquals(
      store.batches.sessions(batch).map((run) => [run.taskId, run.sessionId]),
      [["a", a2.id], ["b", b1.id], ["a", a1.id]],
    );
    // The task row still names its latest session, as the report shows it.
    assertEquals(store.batches.tasks(batch).map((task) => task.sessionId), [a2.id, b1.id]);
    // Another batch's sessions are its own.
    assertEquals(store.batches.sessions(store.batches.create("{}", null, ["c"])), []);
  } finally {
    store.close();
  }
});

Deno.test("batches: a deleted session leaves the batch's list of sessions", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir, { now: ticking() });
  try {
    const batch = store.batches.create("{}", null, ["a"]);
    const first = store.createSession(session);
    const second = store.createSession(session);
    store.batches.started(batch, "a", first.id);
    store.batches.started(batch, "a", second.id);
    store.deleteSession(first.id);
    assertEquals(store.batches.sessions(batch).map((run) => run.sessionId), [second.id]);
  } finally {
    store.close();
  }
});

Deno.test("batches: migration 10 keeps the session of each task recorded before it", async () => {
  await using data = await tempDataDir();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  migrate(db, MIGRATIONS.filter((migration) => migration.version <= 9));
  db.exec(`
    INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at)
      VALUES ('ses_old_a', '/w', 'm', 'build', 1, 1), ('ses_old_b', '/w', 'm', 'build', 2, 2);
    INSERT INTO batches (id, created_at, spec, shard) VALUES ('batch_old', 1, '{}', NULL);
    INSERT INTO batch_tasks (batch_id, task_id, seq, session_id, status, started_at)
      VALUES ('batch_old', 'a', 0, 'ses_old_a', 'succeeded', 10),
             ('batch_old', 'b', 1, 'ses_old_b', 'pending', 20),
             ('batch_old', 'c', 2, NULL, 'pending', NULL);
  `);
  db.close();

  const store = openStore(data.dir, { now: ticking(100) });
  try {
    assertEquals(
      store.batches.sessions("batch_old").map((run) => [run.taskId, run.sessionId, run.startedAt]),
      [["b", "ses_old_b", 20], ["a", "ses_old_a", 10]],
    );
    // Resumed after the upgrade: the new session comes first, the old one stays.
    const again = store.createSession(session);
    store.batches.started("batch_old", "b", again.id);
    assertEquals(
      store.batches.sessions("batch_old").map((run) => run.sessionId),
      [again.id, "ses_old_b", "ses_old_a"],
    );
  } finally {
    store.close();
  }
  const check = new DatabaseSync(path.join(data.dir, DATABASE_FILE), { readOnly: true });
  try {
    const version = (check.prepare("PRAGMA user_version").get() as { user_version: number })
      .user_version;
    assertEquals(version, SCHEMA_VERSION);
  } finally {
    check.close();
  }
});
