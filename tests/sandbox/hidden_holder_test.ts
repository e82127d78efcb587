/**
 * hiddenHolder decides, on every path a file tool touches, whether a hidden
 * entry holds it. The session's own spill folder is the one exception, and it
 * is resolved only for paths a hidden entry holds: most checks are of
 * workspace files, and the folder usually does not exist yet, so resolving it
 * costs a failing realpath per check.
 */
import { assertEquals } from "../support/assert.ts";
import * as path from "node:path";
import { hiddenHolder } from "../../src/sandbox/hidden.ts";

async function setup() {
  const root = Deno.realPathSync(await Deno.makeTempDir({ prefix: "skiff-hidden-holder-" }));
  const data = path.join(root, "data");
  const workspace = path.join(root, "work");
  await Deno.mkdir(data);
  await Deno.mkdir(workspace);
  const keys = path.join(root, "home", ".ssh");
  return {
    root,
    hidden: [keys, data],
    keys,
    data,
    workspace,
    ownSpill: path.join(data, "tool-output", "session-a"),
    otherSpill: path.join(data, "tool-output", "session-b"),
  };
}

/** Counts realpath calls while `work` runs. */
function countingRealpaths(work: () => void): number {
  const original = Deno.realPathSync;
  let calls = 0;
  Deno.realPathSync = (target) => {
    calls++;
    return original(target);
  };
  try {
    work();
  } finally {
    Deno.realPathSync = original;
  }
  return calls;
}

Deno.test("hiddenHolder does not resolve the spill folder for a path no hidden entry holds", async () => {
  const t = await setup();
  try {
    const file = path.join(t.workspace, "src", "main.ts");
    const calls = countingRealpaths(() => {
      for (let index = 0; index < 100; index++) {
        assertEquals(hiddenHolder(t.hidden, file, t.ownSpill), null);
      }
    });
    assertEquals(calls, 0);
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});

Deno.test("hiddenHolder keeps every decision: keys and other sessions hidden, the own spill folder readable", async () => {
  const t = await setup();
  try {
    for (const exists of [false, true]) {
      if (exists) await Deno.mkdir(t.ownSpill, { recursive: true });
      const note = exists ? "spill folder created" : "spill folder not created yet";
      assertEquals(
        hiddenHolder(t.hidden, path.join(t.keys, "id_ed25519"), t.ownSpill),
        t.keys,
        note,
      );
      assertEquals(hiddenHolder(t.hidden, path.join(t.data, "skiff.db"), t.ownSpill), t.data, note);
      assertEquals(
        hiddenHolder(t.hidden, path.join(t.otherSpill, "c1.txt"), t.ownSpill),
        t.data,
        note,
      );
      assertEquals(hiddenHolder(t.hidden, path.join(t.ownSpill, "c1.txt"), t.ownSpill), null, note);
      assertEquals(hiddenHolder(t.hidden, t.ownSpill, t.ownSpill), null, note);
      assertEquals(hiddenHolder(t.hidden, path.join(t.ownSpill, "c1.txt")), t.data, note);
      assertEquals(hiddenHolder(t.hidden, path.join(t.workspace, "a.ts"), t.ownSpill), null, note);
    }
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});

Deno.test("hiddenHolder resolves the spill folder through a link to the data folder", async () => {
  const t = await setup();
  try {
    // The data folder named through a symlink: the spill folder given by that
    // name still matches the resolved path a tool checks.
    const alias = path.join(t.root, "data-link");
    await Deno.symlink(t.data, alias);
    const ownByAlias = path.join(alias, "tool-output", "session-a");
    await Deno.mkdir(t.ownSpill, { recursive: true });
    assertEquals(hiddenHolder(t.hidden, path.join(t.ownSpill, "c1.txt"), ownByAlias), null);
    assertEquals(hiddenHolder(t.hidden, path.join(t.otherSpill, "c1.txt"), ownByAlias), t.data);
  } finally {
    await Deno.remove(t.root, { recursive: true });
  }
});
