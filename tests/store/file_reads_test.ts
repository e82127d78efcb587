/**
 * The read ledger is stored a row a file (migration 6): saving it writes only
 * what changed, removals included, and a database from before keeps its
 * ledger through the upgrade.
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import { MIGRATIONS } from "../../src/store/migrations.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";

Deno.test("saving the read ledger writes only the entries that changed, and removes those gone", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-reads-" });
  const store = openStore(dir);
  try {
    const { id } = store.createSession({ workspace: dir, model: "m", agent: "build" });
    store.saveFileReads(id, [["/w/a.ts", "1"], ["/w/b.ts", "2"]]);
    store.saveFileReads(id, [["/w/a.ts", "1"], ["/w/b.ts", "3"], ["/w/c.ts", "4"]]);
    assertEquals(store.getFileReads(id), [["/w/a.ts", "1"], ["/w/b.ts", "3"], ["/w/c.ts", "4"]]);
    store.saveFileReads(id, [["/w/c.ts", "4"]]);
    assertEquals(store.getFileReads(id), [["/w/c.ts", "4"]]);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("a database from before the file_reads table keeps each session's ledger", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-reads-" });
  const db = new DatabaseSync(path.join(dir, DATABASE_FILE));
  for (const migration of MIGRATIONS.filter((one) => one.version <= 5)) db.exec(migration.sql);
  db.exec("PRAGMA user_version = 5");
  db.exec(
    `INSERT INTO sessions (id, workspace, model, agent, created_at, updated_at, file_reads)
     VALUES ('ses_old', '/w', 'm', 'build', 1, 1, '[["/w/a.ts","h1"],["/w/b.ts","h2"]]')`,
  );
  db.close();
  const store = openStore(dir);
  try {
    assertEquals(store.getFileReads("ses_old"), [["/w/a.ts", "h1"], ["/w/b.ts", "h2"]]);
  } finally {
    store.close();
    await Deno.remove(dir, { recursive: true });
  }
});
