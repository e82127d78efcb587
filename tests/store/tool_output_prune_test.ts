/**
 * Pruning old sessions' spilled output (src/store/tool_output.ts): by age,
 * and at most once per `everyMs` when asked, so a session's start does not
 * measure every spilled file each time.
 */
import { assert, assertEquals } from "../support/assert.ts";
import * as path from "../../src/lib/path.ts";
import { PRUNED_MARK, pruneToolOutput } from "../../src/store/tool_output.ts";

const DAY = 24 * 3600 * 1000;
const HOUR = 3600 * 1000;

async function withDataDir(work: (dir: string) => Promise<void> | void): Promise<void> {
  const dir = await Deno.makeTempDir({ prefix: "skiff-prune-" });
  try {
    await work(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** A spill folder with one file, both last changed `at`. */
function spilled(dir: string, session: string, at: number): string {
  const folder = path.join(dir, "tool-output", session);
  Deno.mkdirSync(folder, { recursive: true });
  Deno.writeTextFileSync(path.join(folder, "call_1.txt"), "output\n");
  Deno.utimeSync(path.join(folder, "call_1.txt"), new Date(at), new Date(at));
  Deno.utimeSync(folder, new Date(at), new Date(at));
  return folder;
}

function present(file: string): boolean {
  try {
    Deno.statSync(file);
    return true;
  } catch {
    return false;
  }
}

Deno.test("no tool-output folder yet: nothing pruned, nothing marked", () =>
  withDataDir((dir) => {
    assertEquals(pruneToolOutput(dir, { everyMs: HOUR }), []);
    assert(!present(path.join(dir, PRUNED_MARK)));
    assert(!present(path.join(dir, "tool-output")));
  }));

Deno.test("with everyMs a second start within the hour does not measure again; after it, it prunes", () =>
  withDataDir((dir) => {
    let now = Date.now();
    const first = spilled(dir, "ses_a", now - 10 * DAY);
    assertEquals(pruneToolOutput(dir, { everyMs: HOUR, now: () => now }), [first]);
    assert(present(path.join(dir, PRUNED_MARK)), "the pruning is marked");

    const second = spilled(dir, "ses_b", now - 10 * DAY);
    now += HOUR / 2;
    assertEquals(pruneToolOutput(dir, { everyMs: HOUR, now: () => now }), []);
    assert(present(second), "left for the next pruning");

    now += HOUR;
    assertEquals(pruneToolOutput(dir, { everyMs: HOUR, now: () => now }), [second]);
    // Without everyMs (a caller that wants it now) the mark is not consulted.
    const third = spilled(dir, "ses_c", now - 10 * DAY);
    assertEquals(pruneToolOutput(dir, { now: () => now }), [third]);
  }));

Deno.test("a mark dated ahead of now (a clock set back) does not stop the pruning", () =>
  withDataDir((dir) => {
    const now = Date.now();
    const old = spilled(dir, "ses_a", now - 10 * DAY);
    const mark = path.join(dir, PRUNED_MARK);
    Deno.writeFileSync(mark, new Uint8Array());
    Deno.utimeSync(mark, new Date(now + DAY), new Date(now + DAY));
    assertEquals(pruneToolOutput(dir, { everyMs: HOUR, now: () => now }), [old]);
    assertEquals(Deno.statSync(mark).mtime?.getTime(), now, "marked at this pruning");
  }));

Deno.test("the session's own folder and recent ones stay", () =>
  withDataDir((dir) => {
    const now = Date.now();
    const own = spilled(dir, "ses_own", now - 10 * DAY);
    const recent = spilled(dir, "ses_recent", now - DAY);
    const old = spilled(dir, "ses_old", now - 10 * DAY);
    assertEquals(pruneToolOutput(dir, { keep: ["ses_own"], everyMs: HOUR, now: () => now }), [old]);
    assert(present(own) && present(recent));
  }));
