/**
 * A command the journal holds as begun and never completed is surveyed only
 * when no skiff run is live in the workspace (a live run's command is still
 * running, not killed), and one that cannot be surveyed is named with the
 * reason: undo never reports it put back what it did not.
 */
import * as path from "node:path";
import { assertEquals, assertStringIncludes } from "../support/assert.ts";
import { openStore } from "../../src/store/store.ts";
import type { Liveness } from "../../src/store/run_owner.ts";
import { settleKilledRuns } from "../../src/undo/killed_commands.ts";

async function withStoreIn(
  liveness: Liveness,
  work: (
    context: { store: ReturnType<typeof openStore>; workspace: string; dataDir: string },
  ) => Promise<void>,
): Promise<void> {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-killed-" }));
  const workspace = path.join(root, "work");
  const dataDir = path.join(root, "data");
  await Deno.mkdir(workspace);
  await Deno.mkdir(dataDir);
  const store = openStore(dataDir, { liveness: () => liveness });
  try {
    await work({ store, workspace, dataDir });
  } finally {
    store.close();
    await Deno.remove(root, { recursive: true });
  }
}

const run = { run_id: "run_test", host: "here", pid: 1, pid_started: null };

Deno.test("while a run is live, its unfinished command is not taken for killed", async () => {
  await withStoreIn("alive", async ({ store, workspace, dataDir }) => {
    const session = store.createSession({ workspace, model: "m", agent: "build", holder: run });
    store.undoJournal.beginCommand(session.id, 1, {
      workspace,
      dataDir,
      tree: "0".repeat(40),
      owns: [],
    });
    const settled = await settleKilledRuns(store, workspace);
    assertEquals(settled.unsurveyed.length, 1);
    assertStringIncludes(settled.unsurveyed[0].reason, "a skiff run is live in the workspace");
    assertEquals(store.undoJournal.pendingCommands(session.id, 1).length, 1, "left for later");
  });
});

Deno.test("a killed command that cannot be surveyed is named with the reason", async () => {
  await withStoreIn("dead", async ({ store, workspace, dataDir }) => {
    const session = store.createSession({ workspace, model: "m", agent: "build", holder: run });
    // A tree the store never held (its objects were lost).
    store.undoJournal.beginCommand(session.id, 1, {
      workspace,
      dataDir,
      tree: "1".repeat(40),
      owns: [],
    });
    await Deno.writeTextFile(path.join(workspace, "made.txt"), "x\n");
    const settled = await settleKilledRuns(store, workspace);
    assertEquals(settled.unsurveyed.map((command) => command.prompt), [1]);
    assertStringIncludes(settled.unsurveyed[0].reason, "could not be surveyed (git");
    assertEquals(store.snapshots.forPrompt(session.id, 1), [], "nothing filed as its changes");
  });
});
