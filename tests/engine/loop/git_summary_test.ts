/**
 * The git facts of the system prompt: the repository root, and a summary
 * that runs git only through the contained command it is given.
 */
import { assertEquals } from "../../support/assert.ts";
import { gitSummary } from "../../../src/engine/loop/git_summary.ts";
import { findGitRoot } from "../../../src/lib/git_root.ts";

async function git(cwd: string, ...args: string[]) {
  const result = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

/** Stands in for the read-only launcher: runs the command as given, through sh. */
const passThrough = (command: string) =>
  Promise.resolve({ argv: ["sh", "-c", command], env: { PATH: Deno.env.get("PATH") ?? "" } });

Deno.test("git summary: branch and counts through the contained command; none without one", async () => {
  const root = await Deno.makeTempDir();
  try {
    await git(root, "init", "-q", "-b", "trunk");
    await Deno.mkdir(`${root}/src`);
    await Deno.writeTextFile(`${root}/src/a.txt`, "a");
    assertEquals(findGitRoot(`${root}/src`), root);
    assertEquals(await gitSummary(`${root}/src`, passThrough), "branch trunk, clean, 1 untracked");
    assertEquals(await gitSummary(root), null);
  } finally {
    await Deno.remove(root, { recursive: true });
  }
});

Deno.test("git summary: outside a repository there is no root and no summary", async () => {
  const dir = await Deno.makeTempDir();
  try {
    assertEquals(findGitRoot(dir), null);
    assertEquals(await gitSummary(dir, passThrough), null);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
