/**
 * What the file ledger reports between tool calls (src/tools/files/file_ledger.ts):
 * whether what the model has seen changed (the ledger is saved only then), and
 * which files were changed (whose undo after-state a `skiff tool` call records).
 */
import { assertEquals } from "../../support/assert.ts";
import { FileLedger } from "../../../src/tools/files/file_ledger.ts";

Deno.test("file ledger: seen changes are reported once, and only real ones", () => {
  const ledger = new FileLedger(undefined, [["/w/a.txt", "0"]]);
  assertEquals(ledger.takeSeenChanged(), false, "loading what was stored is no change");
  ledger.markRead("/w/a.txt", "alpha");
  assertEquals(ledger.takeSeenChanged(), true);
  assertEquals(ledger.takeSeenChanged(), false);
  ledger.markRead("/w/a.txt", "alpha");
  assertEquals(ledger.takeSeenChanged(), false, "the same content read again");
  ledger.markWritten("/w/a.txt", "beta");
  assertEquals(ledger.takeSeenChanged(), true);
});

Deno.test("file ledger: changed files come from snapshots, writes and commands, once", async () => {
  const saved: string[] = [];
  const ledger = new FileLedger({ save: (_prompt, path) => void saved.push(path) });
  ledger.beginPrompt(1);
  await ledger.snapshot("/w/a.txt", null);
  ledger.markWritten("/w/a.txt", "a");
  assertEquals(ledger.takeChanged(), ["/w/a.txt"]);
  assertEquals(ledger.takeChanged(), []);
  // A second change of a file already snapshotted in the prompt is a change all the same.
  await ledger.snapshot("/w/a.txt", new TextEncoder().encode("a"));
  ledger.noteChanged(["/w/b.txt"]);
  assertEquals(ledger.takeChanged().sort(), ["/w/a.txt", "/w/b.txt"]);
  assertEquals(saved, ["/w/a.txt"], "one snapshot per file and prompt");
  ledger.markRead("/w/c.txt", "c");
  assertEquals(ledger.takeChanged(), [], "reading changes nothing");
});
