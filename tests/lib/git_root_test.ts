/**
 * The one git-root finder (trust, the system prompt and project folders all
 * use it): the nearest `.git` upwards wins, a `.git` file counts as a
 * repository's top, and a folder outside any repository has none.
 */
import { assertEquals } from "../support/assert.ts";
import { findGitRoot } from "../../src/lib/git_root.ts";
import { projectDirs } from "../../src/definitions/agents/discovery.ts";
import { trustRoot } from "../../src/trust/project_trust.ts";

Deno.test("findGitRoot: the nearest .git upwards, a .git file included; none outside", () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-git-root-" }));
  try {
    Deno.mkdirSync(`${root}/repo/.git`, { recursive: true });
    Deno.mkdirSync(`${root}/repo/vendor/lib/src`, { recursive: true });
    // A submodule's checkout: its `.git` is a file pointing elsewhere.
    Deno.writeTextFileSync(`${root}/repo/vendor/lib/.git`, "gitdir: ../../.git/modules/lib\n");
    Deno.mkdirSync(`${root}/plain`);

    assertEquals(findGitRoot(`${root}/repo`), `${root}/repo`);
    assertEquals(findGitRoot(`${root}/repo/vendor`), `${root}/repo`);
    assertEquals(findGitRoot(`${root}/repo/vendor/lib/src`), `${root}/repo/vendor/lib`);
    assertEquals(findGitRoot(`${root}/plain`), null);

    // Trust and the project folders see the same top.
    assertEquals(trustRoot(`${root}/repo/vendor/lib/src`), `${root}/repo/vendor/lib`);
    assertEquals(projectDirs(`${root}/repo/vendor`), [`${root}/repo`, `${root}/repo/vendor`]);
    assertEquals(projectDirs(`${root}/plain`), [`${root}/plain`]);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
