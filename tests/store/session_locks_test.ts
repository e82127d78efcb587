/**
 * One run writes a session at a time: a session held by a live run is
 * refused to another, one held by a run that died is taken over at once, and
 * a session left "running" by a dead run is shown as "stopped".
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assert, assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";
import { migrate, MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import {
  currentRunOwner,
  type Liveness,
  processLiveness,
  type RunOwner,
  STALE_AFTER_MS,
} from "../../src/store/run_owner.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "skiff-locks-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

function owner(runId: string, pid = 1000): RunOwner {
  return { run_id: runId, host: "h", pid, pid_started: "1" };
}

Deno.test("locks: a session held by a live run is refused to another, then free once released", async () => {
  await using data = await tempDataDir();
  const store = openStore(data.dir, { liveness: () => "alive" });
  const first = owner("run_a");
  const session = store.createSession({
    workspace: "/w",
    model: "m",
    agent: "build",
    holder: first,
  });
  assertEquals(session.status, "running");
  const refused = store.locks.claim(session.id, owner("run_b", 2000));
  assertEquals(refused.kind, "held");
  assert(
    refused.kind === "held" && refused.holder.run_id === "run_a" && refused.holder.pid === 1000,
  );
  assertEquals(store.locks.claim(session.id, first).kind, "claimed", "the holder may claim again");

  store.updateSession(session.id, { status: "completed" });
  store.locks.release("run_a");
  assertEquals(store.locks.claim(session.id, owner("run_b", 2000)).kind, "claimed");
  assertEquals(store.getSession(session.id)?.status, "running", "a continued session runs again");
  store.close();
});

Deno.test("locks: a run that died holds nothing, and its session shows as stopped", async () => {
  await using data = await tempDataDir();
  let alive: Liveness = "alive";
  const store = openStore(data.dir, { liveness: () => alive });
  const session = store.createSession({
    workspace: "/w",
    model: "m",
    agent: "build",
    holder: owner("run_a"),
  });
  assertEquals(store.listSessions()[0].status, "running");
  alive = "dead";
  assertEquals(store.listSessions()[0].status, "stopped");
  assertEquals(store.getSession(session.id)?.status, "stopped");
  assertEquals(store.locks.claim(session.id, owner("run_b")).kind, "claimed");
  store.close();
});

Deno.test("locks: where liveness cannot be told, a run that stopped beating is taken for dead", async () => {
  await using data = await tempDataDir();
  let clock = 1_000_000;
  const store = openStore(data.dir, { now: () => clock, liveness: () => "unknown" });
  const session = store.createSession({
    workspace: "/w",
    model: "m",
    agent: "build",
    holder: owner("run_a"),
  });
  clock += STALE_AFTER_MS - 1000;
  store.locks.beat("run_a");
  clock += STALE_AFTER_MS - 1000;
  assertEquals(store.locks.claim(session.id, owner("run_b")).kind, "held", "it beat recently");
  assertEquals(store.getSession(session.id)?.status, "running");
  clock += 2000;
  assertEquals(store.getSession(session.id)?.status, "stopped");
  assertEquals(store.locks.claim(session.id, owner("run_b")).kind, "claimed");
  store.close();
});

Deno.test("locks: /proc tells a live process from a dead one and from a reused pid", async () => {
  if (Deno.build.os !== "linux") {
    console.warn("SKIPPED: /proc liveness is Linux only; elsewhere the heartbeat decides.");
    return;
  }
  const me = currentRunOwner();
  assert(me.pid_started !== null, "this process's start time is read from /proc");
  assertEquals(processLiveness(me), "alive");
  assertEquals(processLiveness({ ...me, pid_started: "1" }), "dead", "same pid, another process");
  assertEquals(processLiveness({ ...me, host: "elsewhere" }), "unknown");

  const child = new Deno.Command("sleep", { args: ["30"] }).spawn();
  const started = Deno.readTextFileSync(`/proc/${child.pid}/stat`);
  const fields = started.slice(started.lastIndexOf(")") + 2).split(" ");
  const sleeper = { ...me, pid: child.pid, pid_started: fields[19] };
  assertEquals(processLiveness(sleeper), "alive");
  child.kill("SIGKILL");
  // Killed but not yet reaped: a zombie is dead too.
  await new Promise((resolve) => setTimeout(resolve, 100));
  assertEquals(processLiveness(sleeper), "dead");
  await child.status;
  assertEquals(processLiveness(sleeper), "dead");
});

Deno.test("locks: a version 2 database is migrated to hold locks; its running sessions show stopped", async () => {
  await using data = await tempDataDir();
  const db = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  migrate(db, MIGRATIONS.slice(0, 2));
  db.exec(`INSERT INTO sessions (id, workspace, title, model, agent, created_at, updated_at, status)
           VALUES ('ses_0lp2x9k7aabcdefghijkl', '/w', 'old', 'm', 'build', 1, 1, 'running')`);
  db.close();
  const store = openStore(data.dir, { liveness: () => "alive" });
  const old = store.getSession("ses_0lp2x9k7a")!;
  assertEquals([old.title, old.status], ["old", "stopped"]);
  assertEquals(store.locks.claim(old.id, owner("run_a")).kind, "claimed");
  assertEquals(store.getSession(old.id)?.status, "running");
  store.close();
  const check = new DatabaseSync(path.join(data.dir, DATABASE_FILE));
  assertEquals(
    (check.prepare("PRAGMA user_version").get() as { user_version: number }).user_version,
    SCHEMA_VERSION,
  );
  check.close();
});
