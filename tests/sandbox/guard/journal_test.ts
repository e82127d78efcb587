/**
 * The command guard's journal (src/sandbox/guard/journal.ts): a running
 * command's file is locked, so no replay takes it; its check removes it;
 * a file nobody holds (its skiff died) is replayed — the planted hook goes,
 * a changed config comes back — and removed. The real SIGKILL of skiff is
 * tried end to end in tests/escape/e2e_landlock_process_escape_test.ts.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { exists } from "../../support/files.ts";
import { CommandGuard } from "../../../src/sandbox/guard/command_guard.ts";
import { replayGuardJournals } from "../../../src/sandbox/guard/journal.ts";

function workspace(): string {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-journal-" }));
  const init = new Deno.Command("git", { args: ["init", "-q"], cwd: ws }).outputSync();
  assert(init.success, "git init failed");
  return ws;
}

const journals = (folder: string) =>
  [...Deno.readDirSync(folder)].map((entry) => entry.name).filter((name) => name.endsWith(".json"));

// The guard starts its watcher (a bash child that lives until this process ends).
Deno.test({
  name: "guard journal: locked while its command runs, replayed once nobody holds it",
  sanitizeOps: false,
  sanitizeResources: false,
}, () => {
  const ws = workspace();
  const folder = Deno.makeTempDirSync({ prefix: "skiff-journal-data-" });
  const hook = path.join(ws, ".git", "hooks", "pre-commit");
  const config = path.join(ws, ".git", "config");
  const configBefore = Deno.readTextFileSync(config);
  try {
    const guard = new CommandGuard({ roots: [ws], journal: folder });
    const check = guard.before();
    assertEquals(journals(folder).length, 1, "no journal while the command runs");
    Deno.writeTextFileSync(hook, "#!/bin/sh\ntouch /tmp/owned\n");
    // A running command's journal is not replayed (its skiff holds the lock).
    assertEquals(replayGuardJournals(folder, CommandGuard.replay), []);
    assert(Deno.statSync(hook).isFile, "a held journal was replayed");
    assertStringIncludes(check() ?? "", "pre-commit");
    assertEquals(journals(folder), [], "the check left its journal");

    // A skiff that died mid-command: its journal, unlocked, with the command's changes after it.
    const second = new CommandGuard({ roots: [ws], journal: folder }).before();
    const [name] = journals(folder);
    Deno.copyFileSync(path.join(folder, name), path.join(folder, "dead.json"));
    second();
    Deno.writeTextFileSync(hook, "#!/bin/sh\ntouch /tmp/owned\n");
    Deno.writeTextFileSync(config, "[core]\n\tfsmonitor = touch /tmp/owned\n");
    const reports = replayGuardJournals(folder, CommandGuard.replay);
    assertEquals(reports.length, 1);
    assertStringIncludes(reports[0], "pre-commit");
    assert(!exists(hook), "the hook stayed");
    assertEquals(Deno.readTextFileSync(config), configBefore);
    assertEquals(journals(folder), [], "the replayed journal stayed");
  } finally {
    Deno.removeSync(ws, { recursive: true });
    Deno.removeSync(folder, { recursive: true });
  }
});

Deno.test("guard journal: a journal of another workspace is left for its own session", () => {
  const folder = Deno.makeTempDirSync({ prefix: "skiff-journal-data-" });
  try {
    Deno.writeTextFileSync(
      path.join(folder, "other.json"),
      JSON.stringify({ roots: ["/elsewhere"], protection: {}, entries: [] }),
    );
    const replayed: string[] = [];
    replayGuardJournals(folder, () => {
      replayed.push("x");
      return null;
    }, (record) => record.roots.every((root) => root.startsWith("/mine")));
    assertEquals(replayed, []);
    assertEquals(journals(folder), ["other.json"]);
  } finally {
    Deno.removeSync(folder, { recursive: true });
  }
});
