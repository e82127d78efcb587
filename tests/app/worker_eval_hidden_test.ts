/**
 * hiddenAround, which every session open and every sandbox launcher runs on
 * the hidden list (~30 entries), now skips asking the filesystem how it
 * treats case for an entry that cannot hold a work folder even with case
 * ignored (docs/performance.md, Start-up). Which entries apply must not
 * change: an entry that is, or holds, the workspace or an extra folder is
 * left out, every other entry stays, on a case-sensitive filesystem and on
 * one that ignores case alike.
 */
import { assertEquals } from "../support/assert.ts";
import { hiddenAround } from "../../src/sandbox/hidden.ts";
import { isCaseInsensitive } from "../../src/sandbox/paths.ts";

Deno.test("hiddenAround: entries holding a work folder are left out, all others kept", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-hidden-around-" }));
  try {
    const workspace = `${root}/Work/ws`;
    const extra = `${root}/extra`;
    for (const dir of [workspace, `${workspace}/secret`, extra, `${root}/other`]) {
      await Deno.mkdir(dir, { recursive: true });
    }
    const upper = `${root}/WORK`;
    const hidden = [
      workspace, // is the workspace: left out
      `${root}/Work`, // holds it: left out
      root, // holds both: left out
      `${workspace}/secret`, // inside the workspace: stays hidden
      `${root}/other`, // beside it: stays
      `${extra}/../other/x`, // not holding anything: stays
      upper, // holds the workspace only where case is ignored
      "/nonexistent/skiff-hidden", // missing: stays
    ];
    const ignoresCase = isCaseInsensitive(`${root}/Work`);
    const expected = [
      `${workspace}/secret`,
      `${root}/other`,
      `${extra}/../other/x`,
      ...(ignoresCase ? [] : [upper]),
      "/nonexistent/skiff-hidden",
    ];
    assertEquals(hiddenAround(hidden, [workspace, extra]), expected);
    // The extra folder's own holders go too.
    assertEquals(hiddenAround([extra, `${root}/other`], [workspace, extra]), [`${root}/other`]);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
