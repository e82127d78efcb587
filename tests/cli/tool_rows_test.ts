/**
 * End-to-end, the long-lived `skiff tool`: many calls on one process leave
 * the rows they always left — every event once, numbered 1..n in call order,
 * and the read ledger holding each file's last seen content — with the
 * store keeping the event numbers and the ledger between calls.
 */
import * as path from "node:path";
import { DatabaseSync } from "node:sqlite";
import { assertEquals } from "../support/assert.ts";
import { makeSandbox, parseJsonLines, runSkiff } from "../support/cli.ts";
import { DATABASE_FILE } from "../../src/store/data_dir.ts";
import { hashContent } from "../../src/contracts/snapshot_sink.ts";

Deno.test("skiff tool, 24 calls on one process: events 1..48 in call order, the ledger as last seen", async () => {
  const sandbox = await makeSandbox();
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "alpha\n");
    await Deno.writeTextFile(`${sandbox.workspace}/b.txt`, "beta\n");
    const calls = [
      ...Array.from({ length: 20 }, (_, n) => ({
        tool: "read",
        input: { file_path: n % 2 ? "b.txt" : "a.txt" },
      })),
      { tool: "edit", input: { file_path: "a.txt", old_string: "alpha", new_string: "ALPHA" } },
      { tool: "read", input: { file_path: "a.txt" } },
      { tool: "edit", input: { file_path: "b.txt", old_string: "beta", new_string: "BETA" } },
      { tool: "read", input: { file_path: "b.txt" } },
    ];
    const result = await runSkiff(["tool"], sandbox, {
      input: calls.map((call) => JSON.stringify(call)).join("\n") + "\n",
    });
    assertEquals(result.code, 0, result.stdout + result.stderr);
    assertEquals(parseJsonLines(result.stdout).map((line) => line.ok), calls.map(() => true));

    const db = new DatabaseSync(path.join(sandbox.dataDir, DATABASE_FILE));
    try {
      const [{ id }] = db.prepare("SELECT id FROM sessions").all() as { id: string }[];
      const events = db.prepare(
        "SELECT seq, type, payload FROM events WHERE session_id = ? ORDER BY seq",
      )
        .all(id)
        .map((row) => ({
          seq: row.seq as number,
          type: row.type as string,
          tool: JSON.parse(row.payload as string).tool as string,
          file: JSON.parse(row.payload as string).input?.file_path as string | undefined,
        }));
      assertEquals(events.map((event) => event.seq), events.map((_, index) => index + 1));
      assertEquals(
        events.map((event) => event.type),
        calls.flatMap(() => ["tool.started", "tool.completed"]),
      );
      assertEquals(
        events.filter((event) => event.type === "tool.started").map((
          event,
        ) => [event.tool, event.file]),
        calls.map((call) => [call.tool, call.input.file_path]),
      );
      const reads = db.prepare(
        "SELECT path, hash FROM file_reads WHERE session_id = ? ORDER BY rowid",
      )
        .all(id)
        .map((row) => [path.basename(row.path as string), row.hash as string]);
      assertEquals(reads, [
        ["a.txt", hashContent("ALPHA\n")],
        ["b.txt", hashContent("BETA\n")],
      ]);
    } finally {
      db.close();
    }
  } finally {
    await sandbox.cleanup();
  }
});
