/**
 * End-to-end escape attempts on the file tools' edges: `skiff undo` after a
 * folder became a symlink, instruction files linked out of the workspace,
 * grep reading files the read rules keep back. Each runs skiff as a real
 * process against the scripted mock model.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import { everythingSent, SSH_SECRET, withAttack } from "./e2e_support.ts";

Deno.test("e2e: an AGENTS.md linked to ~/.ssh/id_rsa does not reach the system prompt", async () => {
  await withAttack([{ text: "done" }], async (sandbox, mock) => {
    await Deno.symlink(
      path.join(sandbox.home, ".ssh", "id_rsa"),
      path.join(sandbox.workspace, "AGENTS.md"),
    );
    // A link that stays inside the project is an ordinary layout and is kept.
    await Deno.mkdir(path.join(sandbox.workspace, "sub"));
    await Deno.writeTextFile(path.join(sandbox.workspace, "docs.md"), "Use tabs.\n");
    await Deno.symlink("../docs.md", path.join(sandbox.workspace, "sub", "CLAUDE.md"));
    const result = await runSkiff(["run", "--json", "--dir", "sub", "hello"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const sent = everythingSent(mock);
    assert(!sent.includes(SSH_SECRET), "the key behind AGENTS.md reached the model");
    assertStringIncludes(sent, "Use tabs.");
  });
});
