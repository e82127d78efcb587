/**
 * hiddenAround (every session open and sandbox launcher runs it on the ~30
 * hidden entries) and hiddenHolder (every file tool's path check) now skip
 * asking the filesystem how it treats case for an entry that cannot hold the
 * path even with case ignored (docs/performance.md, Start-up). What they
 * answer must not change: an entry that is, or holds, a work folder is left
 * out, every other entry stays; a path inside an entry, in any case the
 * filesystem ignores, is held by it; on a case-sensitive filesystem and on
 * one that ignores case alike.
 */
import { assertEquals } from "../support/assert.ts";
import { hiddenAround, hiddenHolder } from "../../src/sandbox/hidden.ts";
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

Deno.test("hiddenHolder: the entry holding a path, whatever case the filesystem ignores", async () => {
  const root = await Deno.realPath(await Deno.makeTempDir({ prefix: "skiff-hidden-holder-" }));
  try {
    await Deno.mkdir(`${root}/Keys/sub`, { recursive: true });
    await Deno.mkdir(`${root}/work`, { recursive: true });
    const hidden = [`${root}/Keys`, `${root}/data`];
    assertEquals(hiddenHolder(hidden, `${root}/Keys/sub/id`), `${root}/Keys`);
    assertEquals(hiddenHolder(hidden, `${root}/Keys`), `${root}/Keys`);
    assertEquals(hiddenHolder(hidden, `${root}/work/a.txt`), null);
    assertEquals(hiddenHolder(hidden, `${root}/Keysmith/a`), null);
    // Another case of the same folder is the folder where case is ignored.
    const ignoresCase = isCaseInsensitive(`${root}/Keys`);
    assertEquals(hiddenHolder(hidden, `${root}/KEYS/sub/id`), ignoresCase ? `${root}/Keys` : null);
    // The session's own spilled output stays readable; another session's does not.
    const own = `${root}/data/tool-output/ses_own`;
    assertEquals(hiddenHolder(hidden, `${own}/out.txt`, own), null);
    assertEquals(
      hiddenHolder(hidden, `${root}/data/tool-output/ses_x/out.txt`, own),
      `${root}/data`,
    );
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});
