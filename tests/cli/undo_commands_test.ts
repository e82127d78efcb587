/**
 * End-to-end: `skiff undo` puts back what a prompt's commands changed — a
 * file a script wrote, a folder it made, a file it deleted, a file it
 * rewrote — and still refuses a file someone changed afterwards.
 */
import * as path from "node:path";
import { assert, assertEquals, assertMatch } from "../support/assert.ts";
import { runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { hasBwrap } from "../escape/e2e_support.ts";

const SCRIPT = [
  "printf 'made\\n' > made.txt",
  "mkdir -p out/deep && printf 'x\\n' > out/deep/x.txt",
  "rm gone.txt",
  "printf 'v1\\n' > edit.txt",
  "printf 'build\\n' > ignored.log",
].join(" && ");

const PROMPT: MockTurn[] = [
  { toolCalls: [{ name: "bash", arguments: { command: SCRIPT } }] },
  { text: "done" },
];

/** Commands run in the OS sandbox where there is one; the snapshot does not depend on it. */
function sandboxFlags(): string[] {
  if (hasBwrap) return [];
  console.warn(
    "WARNING: bubblewrap is missing: undo_commands_test runs commands with --sandbox full-access",
  );
  return ["--sandbox", "full-access"];
}

async function prepare(sandbox: Sandbox): Promise<void> {
  const at = (name: string) => path.join(sandbox.workspace, name);
  await Deno.writeTextFile(at(".gitignore"), "*.log\n");
  await Deno.writeTextFile(at("gone.txt"), "gone\n");
  await Deno.chmod(at("gone.txt"), 0o755);
  await Deno.writeTextFile(at("edit.txt"), "v0\n");
  await Deno.writeTextFile(at("keep.txt"), "keep\n");
}

const exists = (file: string) => Deno.lstat(file).then(() => true, () => false);

Deno.test("skiff undo puts back what a prompt's command wrote, created and deleted", async () => {
  await withMockSandbox(PROMPT, async (sandbox) => {
    await prepare(sandbox);
    const at = (name: string) => path.join(sandbox.workspace, name);
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--allow", "bash(*)", "run the script"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stdout + run.stderr);
    assert(await exists(at("out/deep/x.txt")), "the command ran");
    assertEquals(await exists(at("gone.txt")), false);

    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 0, undo.stdout + undo.stderr);
    assertEquals(await exists(at("made.txt")), false, "a file the script wrote is removed");
    assertEquals(await exists(at("out")), false, "the folder it made is removed");
    assertEquals(await Deno.readTextFile(at("gone.txt")), "gone\n", "a deleted file is back");
    assertEquals((await Deno.stat(at("gone.txt"))).mode! & 0o777, 0o755, "with its mode");
    assertEquals(await Deno.readTextFile(at("edit.txt")), "v0\n", "a rewritten file is back");
    assertEquals(await Deno.readTextFile(at("keep.txt")), "keep\n");
    assert(await exists(at("ignored.log")), "what .gitignore ignores is not covered");
  });
});

Deno.test("skiff undo refuses a file changed after the prompt and puts back the rest", async () => {
  await withMockSandbox(PROMPT, async (sandbox) => {
    await prepare(sandbox);
    const at = (name: string) => path.join(sandbox.workspace, name);
    const run = await runSkiff(
      ["run", ...sandboxFlags(), "--allow", "bash(*)", "run the script"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stdout + run.stderr);
    await Deno.writeTextFile(at("edit.txt"), "by a person\n");
    await Deno.writeTextFile(at("out/deep/mine.txt"), "a person's file\n");

    const undo = await runSkiff(["undo"], sandbox);
    assertEquals(undo.code, 1, undo.stdout + undo.stderr);
    assertMatch(undo.stderr, /refused .*edit\.txt: changed on disk since/);
    assertMatch(undo.stderr, /refused .*out\/deep: created by the prompt, but it holds 1 entry/);
    assertEquals(
      await Deno.readTextFile(at("edit.txt")),
      "by a person\n",
      "the person's change stays",
    );
    assertEquals(await Deno.readTextFile(at("out/deep/mine.txt")), "a person's file\n");
    assertEquals(await exists(at("out/deep/x.txt")), false);
    assertEquals(await exists(at("made.txt")), false);
    assertEquals(await Deno.readTextFile(at("gone.txt")), "gone\n");
  });
});
