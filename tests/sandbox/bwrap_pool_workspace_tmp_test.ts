/**
 * The session sandbox empties its private /tmp, /run and /dev/shm after each
 * command; a workspace that lives under /tmp is a bind mount inside that
 * /tmp, and emptying must not reach into it: the user's files and what the
 * command wrote there stay (through `skiff run`, as a user runs it).
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";
import { hasBwrap } from "../escape/e2e_support.ts";

Deno.test("session sandbox: a workspace under /tmp keeps its files and a command's writes", async () => {
  if (!hasBwrap) {
    console.warn("WARNING: bubblewrap is missing: the session sandbox is not tested here");
    return;
  }
  const script = [
    { toolCalls: [{ name: "bash", arguments: { command: "echo made > made.txt" } }] },
    { toolCalls: [{ name: "bash", arguments: { command: "cat keep.txt made.txt" } }] },
    { text: "done" },
  ];
  await withMockSandbox(script, async (sandbox) => {
    assertEquals(sandbox.workspace.startsWith("/tmp/"), true, sandbox.workspace);
    await Deno.writeTextFile(path.join(sandbox.workspace, "keep.txt"), "mine\n");
    const run = await runSkiff(["run", "--allow", "bash(*)", "write it"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "keep.txt")), "mine\n");
    assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "made.txt")), "made\n");
  });
});
