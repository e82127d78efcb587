/**
 * Migration 4 renames `snapshots.turn` to `prompt` (undo's unit is a user
 * prompt; "turn" is a model step in events). A version-3 database keeps its
 * snapshots, and the one-snapshot-per-(session, prompt, path) rule survives.
 */
import { assertEquals } from "../support/assert.ts";
import { migrate, MIGRATIONS, SCHEMA_VERSION } from "../../src/store/migrations.ts";
import { openStore } from "../../src/store/store.ts";

Deno.test("a version 3 database keeps its undo snapshots under the renamed prompt column", async () => {
  const dir = await Deno.makeTempDir({ prefix: "skiff-snapshots-prompt-" });
  try {
    const { DatabaseSync } = await import("node:sqlite");
    const db = new DatabaseSync(`${dir}/skiff.db`);
    migrate(db, MIGRATIONS.filter((migration) => migration.version <= 3));
    db.exec(
      `INSERT INTO sessions (id, workspace, title, model, agent, created_at, updated_at, status)
             VALUES ('ses_v3', '/w', '', 'm', 'build', 1, 1, 'completed')`,
    );
    db.exec(
      `INSERT INTO snapshots (session_id, turn, path, content, existed, hash, created_at, after_hash, mode)
             VALUES ('ses_v3', 1, '/w/a', X'6F6C64', 1, 'h1', 1, 'after1', 420),
                    ('ses_v3', 2, '/w/b', NULL, 0, NULL, 2, 'absent', NULL)`,
    );
    db.close();

    const store = openStore(dir);
    try {
      assertEquals(store.snapshots.lastPrompt("ses_v3"), 2);
      const [first] = store.snapshots.forPrompt("ses_v3", 1);
      assertEquals(
        [first.path, new TextDecoder().decode(first.content!), first.after_hash, first.mode],
        ["/w/a", "old", "after1", 420],
      );
      assertEquals(store.snapshots.forPrompt("ses_v3", 2).map((s) => [s.path, s.existed]), [
        ["/w/b", false],
      ]);
      // The UNIQUE constraint followed the rename: a later snapshot of the
      // same file in the same prompt is ignored, the first one kept.
      store.snapshots.save("ses_v3", 1, "/w/a", new TextEncoder().encode("newer"));
      const again = store.snapshots.forPrompt("ses_v3", 1);
      assertEquals(again.length, 1);
      assertEquals(new TextDecoder().decode(again[0].content!), "old");
      assertEquals(store.snapshots.delete("ses_v3", 2), 1);
      assertEquals(store.snapshots.lastPrompt("ses_v3"), 1);
    } finally {
      store.close();
    }
    const check = new DatabaseSync(`${dir}/skiff.db`);
    const columns = (check.prepare("PRAGMA table_info(snapshots)").all() as { name: string }[])
      .map((column) => column.name);
    const version = (check.prepare("PRAGMA user_version").get() as { user_version: number })
      .user_version;
    check.close();
    assertEquals(version, SCHEMA_VERSION);
    assertEquals([columns.includes("prompt"), columns.includes("turn")], [true, false]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
