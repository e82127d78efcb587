/**
 * The sweep of leftover temporary files never reaches through a link: a
 * folder skiff wrote in that a hostile repository (or a command) turned into
 * a link to elsewhere is skipped, though the same files in their real folder
 * are swept (the control). While a run is live, only stale files go.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { sweepTempFiles, TEMP_FILE_STALE_MS } from "../../src/undo/temp_sweep.ts";

async function withDir(work: (dir: string) => Promise<void>): Promise<void> {
  const dir = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-sweep-" }));
  try {
    await work(dir);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

Deno.test("a folder that became a link is not swept; its real path is (the control)", async () => {
  await withDir(async (dir) => {
    const elsewhere = path.join(dir, "elsewhere");
    await Deno.mkdir(elsewhere);
    const victim = path.join(elsewhere, ".data.skiff-0a1b2c3d.tmp");
    await Deno.writeTextFile(victim, "someone else's\n");
    const work = path.join(dir, "work");
    await Deno.symlink(elsewhere, work);

    assertEquals(sweepTempFiles([work], { onlyStale: false }), []);
    assertEquals(await exists(victim), true, "nothing removed through the link");

    assertEquals(sweepTempFiles([elsewhere], { onlyStale: false }), [victim]);
    assertEquals(await exists(victim), false, "the same file in a folder skiff wrote in goes");
  });
});

Deno.test("while a run is live only temporary files older than a live write can be go", async () => {
  await withDir(async (dir) => {
    const fresh = path.join(dir, ".a.skiff-0a1b2c3d.tmp");
    const stale = path.join(dir, ".b.skiff-0a1b2c3e.tmp");
    await Deno.writeTextFile(fresh, "being written\n");
    await Deno.writeTextFile(stale, "left\n");
    const old = new Date(Date.now() - TEMP_FILE_STALE_MS - 5_000);
    await Deno.utime(stale, old, old);
    assertEquals(sweepTempFiles([dir], { onlyStale: true }), [stale]);
    assertEquals(await exists(fresh), true);
  });
});
