import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals, assertStringIncludes, assertThrows } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { StoreError } from "../../src/store/errors.ts";
import { SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { DATABASE_FILE, resolveDataDir } from "../../src/store/data_dir.ts";
import { makeEvent } from "../../src/contracts/events.ts";
import { currentRunOwner } from "../../src/store/run_owner.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "skiff-store-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

/** Raw access for checks the store's API does not offer (tests only). */
function count(dir: string, table: string): number {
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE), { readOnly: true });
  try {
    return (db.prepare(`SELECT COUNT(*) AS n FROM ${table}`).get() as { n: number }).n;
  } finally {
    db.close();
  }
}

const usage = (input: number, output: number) => ({
  input_tokens: input,
  output_tokens: output,
  total_tokens: input + output,
});

Deno.test("store: an empty folder gets a migrated WAL database that reopens with its data", async () => {
  await using data = await tempDataDir();
  const folder = path.join(data.dir, "nested", "skiff");
  const store = openStore(folder);
  const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  store.close();

  const db = new DatabaseSync(path.join(folder, DATABASE_FILE));
  assertEquals(
    (db.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
    SCHEMA_VERSION,
  );
  assertEquals(
    (db.prepare("PRAGMA journal_mode").get() as { journal_mode: string }).journal_mode,
    "wal",
  );
  db.close();

  const again = openStore(folder);
  assertEquals(again.getSession(session.id)?.model, "m");
  again.close();
});

Deno.test("store: a database from a newer skiff is refused with advice", async () => {
  await using data = await tempDataDir();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  db.exec(`PRAGMA user_version = ${SCHEMA_VERSION + 1}`);
  db.close();
  const error = assertThrows(() => openStore(data.dir), StoreError);
  assert(error.message.includes("newer than this skiff knows"));
  assert(error.message.includes("SKIFF_DATA_DIR"));
});

Deno.test("store: sessions are created, found by prefix, listed newest first, updated", async () => {
  await using data = await tempDataDir();
  let clock = 1_700_000_000_000;
  const store = openStore(data.dir, { now: () => clock });
  const first = store.createSession({
    workspace: "/a",
    model: "m1",
    agent: "build",
    title: "one",
    holder: currentRunOwner(),
  });
  clock += 1000;
  const second = store.createSession({ workspace: "/a", model: "m1", agent: "build" });
  clock += 1000;
  const other = store.createSession({ workspace: "/b", model: "m2", agent: "plan" });
  clock += 1000;
  const child = store.createSession({
    workspace: "/a",
    model: "m1",
    agent: "explore",
    parentId: second.id,
  });

  assert(first.id.startsWith("ses_") && first.id.length === second.id.length);
  assertEquals(first.status, "running");
  assertEquals(first.created_at, 1_700_000_000_000);
  assertEquals(store.getSession(first.id.slice(0, 20))?.id, first.id);
  assertEquals(store.getSession(first.id.slice(4, 20))?.id, first.id, "prefix without ses_");
  assertThrows(() => store.getSession("ses_"), StoreError, "matches more than one session");
  assertEquals(store.getSession("ses_nothing"), undefined);

  // The child is newest, but --continue must pick a top-level session.
  assertEquals(store.latestSession("/a")?.id, second.id);
  assertEquals(store.listSessions({ workspace: "/a" }).map((s) => s.id), [second.id, first.id]);
  assertEquals(store.listSessions({ limit: 2 }).map((s) => s.id), [other.id, second.id]);
  assertEquals(store.listSessions({ includeChildren: true }).length, 4);
  assertEquals(store.childSessions(second.id).map((s) => s.id), [child.id]);

  clock += 1000;
  store.updateSession(first.id, { status: "completed", title: "renamed" });
  store.addUsage(first.id, usage(100, 20), 1);
  store.addUsage(first.id, usage(50, 5), 1);
  const updated = store.getSession(first.id)!;
  assertEquals(
    [updated.status, updated.title, updated.turns, updated.input_tokens, updated.output_tokens],
    ["completed", "renamed", 2, 150, 25],
  );
  assertEquals(updated.total_tokens, 175);
  assertEquals(store.latestSession("/a")?.id, first.id, "activity moves a session to the top");
  assertThrows(() => store.updateSession("ses_missing", { status: "x" }), StoreError, "no session");
  store.close();
});

Deno.test("store: history comes back in order with parts as appended", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir);
  const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  const user = store.appendMessage(session.id, "user");
  const assistant = store.appendMessage(session.id, "assistant");
  store.appendPart(session.id, user, "text", { type: "text", text: "fix the bug" });
  store.appendPart(session.id, assistant, "text", { type: "text", text: "Reading." });
  store.appendPart(session.id, assistant, "tool_call", {
    type: "tool_call",
    call_id: "c1",
    name: "read",
    arguments: '{"path":"a.ts"}',
  });
  const tool = store.appendMessage(session.id, "tool");
  store.appendPart(session.id, tool, "tool_result", {
    type: "tool_result",
    call_id: "c1",
    ok: true,
  });
  const empty = store.appendMessage(session.id, "assistant");

  const history = store.loadHistory(session.id);
  assertEquals(history.map((m) => [m.id, m.role, m.seq]), [
    [user, "user", 1],
    [assistant, "assistant", 2],
    [tool, "tool", 3],
    [empty, "assistant", 4],
  ]);
  assertEquals(history[1].parts, [
    { type: "text", text: "Reading." },
    { type: "tool_call", call_id: "c1", name: "read", arguments: '{"path":"a.ts"}' },
  ]);
  assertEquals(history[3].parts, []);
  assertThrows(() => store.appendPart("ses_other", user, "text", {}), StoreError, "no message");
  assertThrows(() => store.appendMessage("ses_missing", "user"), StoreError, "no session");
  store.close();
});

Deno.test("store: events are stored whole; todos and file reads round-trip", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir);
  const session = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  const started = makeEvent("turn.started", session.id, { turn: 1 });
  const done = makeEvent("turn.completed", session.id, { turn: 1, usage: usage(3, 4) });
  store.appendEvent(started);
  store.appendEvent(done);
  store.appendEvent(makeEvent("error", "", { code: "config", message: "x", exit_code: 2 }));
  assertEquals(store.listEvents(session.id), [started, done]);
  assertThrows(
    () => store.appendEvent(makeEvent("turn.started", "ses_gone", { turn: 1 })),
    StoreError,
    "no session ses_gone",
  );

  assertEquals(store.getTodos(session.id), []);
  const todos = [{ content: "write tests", status: "in_progress", priority: "high" } as const];
  store.setTodos(session.id, [...todos]);
  assertEquals(store.getTodos(session.id), [...todos]);
  store.saveFileReads(session.id, [["/w/a.ts", "abc123"]]);
  assertEquals(store.getFileReads(session.id), [["/w/a.ts", "abc123"]]);
  store.close();
});

Deno.test("store: the first snapshot of a file in a turn wins; absent files are kept as absent", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir);
  const { id } = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  const text = (s: string) => new TextEncoder().encode(s);
  assertEquals(store.snapshots.lastPrompt(id), null);

  store.snapshots.save(id, 1, "/w/a.ts", text("original"));
  store.snapshots.save(id, 1, "/w/a.ts", text("after first edit"));
  store.snapshots.save(id, 1, "/w/new.ts", null);
  store.snapshots.save(id, 1, "/w/empty.ts", new Uint8Array());
  const sink = store.snapshots.sink(id);
  await sink.save(2, "/w/a.ts", text("after turn one"));

  assertEquals(store.snapshots.lastPrompt(id), 2);
  const turnOne = store.snapshots.forPrompt(id, 1);
  assertEquals(turnOne.map((s) => [s.path, s.existed]), [
    ["/w/a.ts", true],
    ["/w/new.ts", false],
    ["/w/empty.ts", true],
  ]);
  assertEquals(new TextDecoder().decode(turnOne[0].content!), "original");
  assertEquals(turnOne[1].content, null);
  assertEquals(turnOne[2].content?.length, 0);
  assertEquals(turnOne[0].hash?.length, 64);

  assertEquals(store.snapshots.delete(id, 2), 1);
  assertEquals(store.snapshots.lastPrompt(id), 1);

  store.snapshots.save(id, 3, "/w/run.sh", text("#!/bin/sh"), 0o755);
  store.snapshots.recordAfter(id, 3, "/w/run.sh", "absent");
  const [script] = store.snapshots.forPrompt(id, 3);
  assertEquals([script.mode, script.after_hash], [0o755, "absent"]);
  assertEquals(turnOne[0].after_hash, null, "a prompt that never finished has no after state");
  store.close();
});

Deno.test("store: a version 1 database is migrated forward and keeps its snapshots", async () => {
  await using data = await tempDataDir();
  const { DatabaseSync } = await import("node:sqlite");
  const { MIGRATIONS, migrate } = await import("../../src/store/migrations.ts");
  const db = new DatabaseSync(`${data.dir}/skiff.db`);
  migrate(db, MIGRATIONS.slice(0, 1));
  db.exec(`INSERT INTO sessions (id, workspace, title, model, agent, created_at, updated_at, status)
           VALUES ('ses_old', '/w', '', 'm', 'build', 1, 1, 'completed')`);
  db.exec(`INSERT INTO snapshots (session_id, turn, path, content, existed, hash, created_at)
           VALUES ('ses_old', 1, '/w/a', NULL, 0, NULL, 1)`);
  db.close();
  const store = openStore(data.dir);
  const [snapshot] = store.snapshots.forPrompt("ses_old", 1);
  assertEquals([snapshot.path, snapshot.after_hash, snapshot.mode], ["/w/a", null, null]);
  store.close();
  const check = new DatabaseSync(`${data.dir}/skiff.db`);
  assertEquals(
    (check.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
    SCHEMA_VERSION,
  );
  check.close();
});

Deno.test("store: deleting a session removes everything it holds, subagent sessions included", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir);
  const parent = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  const child = store.createSession({
    workspace: "/w",
    model: "m",
    agent: "general",
    parentId: parent.id,
  });
  const keep = store.createSession({ workspace: "/w", model: "m", agent: "build" });
  for (const session of [parent, child, keep]) {
    const message = store.appendMessage(session.id, "user");
    store.appendPart(session.id, message, "text", { type: "text", text: "hi" });
    store.appendEvent(makeEvent("turn.started", session.id, { turn: 1 }));
    store.snapshots.save(session.id, 1, "/w/a", null);
  }
  assertEquals(store.deleteSession(parent.id), true);
  assertEquals(store.deleteSession(parent.id), false);
  assertEquals(store.getSession(child.id), undefined);
  store.close();
  for (const table of ["sessions", "messages", "parts", "events", "snapshots"]) {
    assertEquals(count(data.dir, table), 1, `${table} keeps only the other session's row`);
  }
});

Deno.test("store: resolveDataDir prefers SKIFF_DATA_DIR, then XDG_DATA_HOME, then ~/.local/share", () => {
  assertEquals(resolveDataDir({ SKIFF_DATA_DIR: "/d", XDG_DATA_HOME: "/x", HOME: "/h" }), "/d");
  assertEquals(resolveDataDir({ XDG_DATA_HOME: "/x", HOME: "/h" }), "/x/skiff");
  assertEquals(resolveDataDir({ XDG_DATA_HOME: "relative", HOME: "/h" }), "/h/.local/share/skiff");
  assertEquals(resolveDataDir({ HOME: "/h" }), "/h/.local/share/skiff");
});

Deno.test("store: a damaged database file is named with what to do, and not left open", async () => {
  await using data = await tempDataDir();
  const file = path.join(data.dir, DATABASE_FILE);
  await Deno.writeTextFile(file, "not a database, just text\n".repeat(64));
  const error = assertThrows(() => openStore(data.dir), StoreError);
  assert(error.message.includes(file), error.message);
  assert(/move it aside/i.test(error.message), error.message);
  assert(!error.message.includes("permissions"), error.message);
  // Nothing holds the file: it can be moved aside and a fresh store opened in its place.
  await Deno.rename(file, `${file}.broken`);
  const store = openStore(data.dir);
  assertEquals(store.listSessions(), []);
  store.close();
});

Deno.test("store: session ids made in the same millisecond differ in their first characters", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir, { now: () => 1_700_000_000_000 });
  const ids = Array.from(
    { length: 20 },
    () => store.createSession({ workspace: "/w", model: "m", agent: "build" }).id,
  );
  // What people type: `ses_` and a few characters. Six are enough among twenty.
  const shortForms = new Set(ids.map((id) => id.slice(0, 10)));
  assertEquals(shortForms.size, ids.length, ids.join("\n"));
  for (const id of ids) assertEquals(store.getSession(id.slice(4, 12))?.id, id);
  store.close();
});

Deno.test("store: old time-first session ids keep working, in full and by prefix", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir);
  store.close();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  for (const id of ["ses_0lp2x9k7aabcdefghijkl", "ses_0lp2x9k7bmnopqrstuvwx"]) {
    db.exec(`INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at)
             VALUES ('${id}', '/w', 'm', 'build', 1, 1)`);
  }
  db.close();
  const again = openStore(data.dir);
  assertEquals(again.getSession("ses_0lp2x9k7aabcdefghijkl")?.id, "ses_0lp2x9k7aabcdefghijkl");
  assertEquals(again.getSession("0lp2x9k7b")?.id, "ses_0lp2x9k7bmnopqrstuvwx");
  const error = assertThrows(() => again.getSession("ses_0lp2x9k7"), StoreError);
  // The shortest prefix that tells each apart is named, so the next try works.
  assertStringIncludes(error.message, "\n  ses_0lp2x9k7a  1970-01-01 00:00  (untitled)");
  assertStringIncludes(error.message, "\n  ses_0lp2x9k7b  ");
  again.close();
});
