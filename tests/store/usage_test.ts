import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { migrate, MIGRATIONS } from "../../src/store/migrations.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";
import { totalsAsUsage } from "../../src/store/usage.ts";

async function tempDataDir() {
  const dir = await Deno.makeTempDir({ prefix: "skiff-usage-" });
  return { dir, [Symbol.asyncDispose]: () => Deno.remove(dir, { recursive: true }) };
}

const DAY = 86_400_000;

Deno.test("usage: rows per request; a session's totals include its subagents', own totals do not", async () => {
  await using data = await tempDataDir();
  let clock = Date.parse("2026-11-01T10:00:00Z");
  const store = openStore(data.dir, { now: () => clock });
  try {
    const parent = store.createSession({ workspace: "/p", model: "gpt-4o", agent: "build" });
    const child = store.createSession({
      workspace: "/p",
      model: "local",
      agent: "explore",
      parentId: parent.id,
    });
    const grandchild = store.createSession({
      workspace: "/p",
      model: "local",
      agent: "explore",
      parentId: child.id,
    });
    store.usage.record(parent.id, "gpt-4o", {
      input_tokens: 100,
      output_tokens: 10,
      total_tokens: 110,
      cached_input_tokens: 40,
      cost_usd: 0.5,
    }, 1);
    const mark = store.usage.lastId();
    clock += DAY;
    store.usage.record(
      child.id,
      "local",
      { input_tokens: 20, output_tokens: 2, total_tokens: 22 },
      1,
    );
    store.usage.record(grandchild.id, "local", {
      input_tokens: 5,
      output_tokens: 1,
      total_tokens: 6,
    });

    const own = store.usage.ownTotals(parent.id);
    assertEquals(own, {
      requests: 1,
      input_tokens: 100,
      output_tokens: 10,
      cached_input_tokens: 40,
      reasoning_tokens: 0,
      cost_usd: 0.5,
      unpriced_requests: 0,
    });
    assertEquals(totalsAsUsage(own).cost_usd, 0.5);
    const all = store.usage.sessionTotals(parent.id);
    assertEquals([all.requests, all.input_tokens, all.output_tokens], [3, 125, 13]);
    assertEquals([all.cost_usd, all.unpriced_requests], [0.5, 2]);
    // Part of it unpriced: the total has no cost rather than a partial one.
    assertEquals("cost_usd" in totalsAsUsage(all), false);
    // Counting from a mark: only what came after (the subagents').
    assertEquals(store.usage.sessionTotals(parent.id, mark).input_tokens, 25);
    // The session row's running totals follow too.
    assertEquals(store.getSession(parent.id)!.input_tokens, 100);
    assertEquals(store.getSession(child.id)!.turns, 1);

    const byModel = store.usage.report({ by: "model" });
    assertEquals(byModel.map((row) => [row.key, row.requests, row.input_tokens]), [
      ["gpt-4o", 1, 100],
      ["local", 2, 25],
    ]);
    const byDay = store.usage.report({ by: "day" });
    assertEquals(byDay.map((row) => row.key), ["2026-11-01", "2026-11-02"]);
    const recent = store.usage.report({ by: "project", since: clock - 1000 });
    assertEquals(recent.map((row) => [row.key, row.requests]), [["/p", 2]]);
  } finally {
    store.close();
  }
});

Deno.test("usage: migration 5 keeps the totals of sessions stored before it, priced unknown", async () => {
  await using data = await tempDataDir();
  const file = path.join(data.dir, DATABASE_FILE);
  const db = new DatabaseSync(file);
  migrate(db, MIGRATIONS.filter((migration) => migration.version < 5));
  db.prepare(
    `INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at, input_tokens,
     output_tokens, total_tokens) VALUES ('ses_old', '/w', 'm', 'build', 1, 2, 70, 7, 77)`,
  ).run();
  db.close();
  const store = openStore(data.dir);
  try {
    const totals = store.usage.ownTotals("ses_old");
    assertEquals([totals.requests, totals.input_tokens, totals.output_tokens], [1, 70, 7]);
    assertEquals(totals.unpriced_requests, 1);
  } finally {
    store.close();
  }
});

Deno.test("usage: migration 12 keeps the rows stored before it; reasoning tokens are summed from then on", async () => {
  await using data = await tempDataDir();
  const file = path.join(data.dir, DATABASE_FILE);
  const db = new DatabaseSync(file);
  migrate(db, MIGRATIONS.filter((migration) => migration.version <= 11));
  db.exec(`
    INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at)
      VALUES ('ses_old', '/w', 'o1', 'build', 1, 2);
    INSERT INTO usage (session_id, parent_id, model, input_tokens, output_tokens,
        cached_input_tokens, cost_usd, created_at)
      VALUES ('ses_old', NULL, 'o1', 500, 90, 200, 0.25, 2);
  `);
  db.close();
  const store = openStore(data.dir);
  try {
    store.usage.record("ses_old", "o1", {
      input_tokens: 100,
      output_tokens: 60,
      total_tokens: 160,
      reasoning_tokens: 45,
      cost_usd: 0.125,
    });
    assertEquals(store.usage.ownTotals("ses_old"), {
      requests: 2,
      input_tokens: 600,
      output_tokens: 150,
      cached_input_tokens: 200,
      reasoning_tokens: 45,
      cost_usd: 0.375,
      unpriced_requests: 0,
    });
    assertEquals(totalsAsUsage(store.usage.ownTotals("ses_old")).reasoning_tokens, 45);
    const [row] = store.usage.report({ by: "model" });
    assertEquals([row.key, row.reasoning_tokens, row.cached_input_tokens], ["o1", 45, 200]);
  } finally {
    store.close();
  }
});
