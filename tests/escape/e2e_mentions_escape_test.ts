/**
 * The chat's `@path` completion in a repository whose `core.fsmonitor` names
 * a script: listing the files must run no git on the user's side (it once
 * ran `git ls-files` bare when ripgrep was missing, and the script ran with
 * the user's rights). The chat runs in tmux with a PATH that has no `rg`;
 * the control runs that same `git ls-files` directly and the script runs.
 */
import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { hasTmux, inChat, press, shows, type, warnWithoutTmux } from "../support/chat_tmux.ts";

warnWithoutTmux("@ completion escape test in the chat");

async function git(args: string[], cwd: string): Promise<void> {
  const result = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

async function exists(file: string): Promise<boolean> {
  return await Deno.lstat(file).then(() => true, () => false);
}

/** A folder of links to every program on `PATH` except `rg`: the same PATH without ripgrep. */
async function pathWithoutRipgrep(bin: string, searchPath: string): Promise<string> {
  await Deno.mkdir(bin, { recursive: true });
  const linked = new Set<string>();
  for (const dir of searchPath.split(":").filter(Boolean)) {
    let entries: Deno.DirEntry[];
    try {
      entries = [...Deno.readDirSync(dir)];
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (entry.name === "rg" || linked.has(entry.name)) continue;
      linked.add(entry.name);
      await Deno.symlink(path.join(dir, entry.name), path.join(bin, entry.name));
    }
  }
  return bin;
}

Deno.test({
  name:
    "e2e mentions (chat): @ completion without ripgrep runs no git, so core.fsmonitor does not run (control: git ls-files runs it)",
  ignore: !hasTmux,
  async fn() {
    let marker = "";
    let workspace = "";
    await inChat([{ text: "unused" }], async (session) => {
      await type(session, "look at @notes-al");
      await press(session, "Tab");
      await shows(session, "@notes-alpha.txt");
      // Give a stray git time to have run its hook.
      await new Promise((resolve) => setTimeout(resolve, 500));
      assertEquals(await exists(marker), false, "core.fsmonitor ran on the user's side");
      await press(session, "C-d");
    }, {
      prefix: "skiff-mention",
      prepare: async (sandbox) => {
        workspace = sandbox.workspace;
        marker = path.join(sandbox.root, "fsmonitor-ran");
        const hook = path.join(sandbox.root, "fsmonitor.sh");
        await Deno.writeTextFile(hook, `#!/bin/sh\ntouch '${marker}'\nexit 1\n`, { mode: 0o755 });
        await git(["init", "-q"], workspace);
        await git(["config", "core.fsmonitor", hook], workspace);
        await Deno.writeTextFile(path.join(workspace, "notes-alpha.txt"), "alpha\n");
        await git(["add", "notes-alpha.txt"], workspace);
        const bin = await pathWithoutRipgrep(path.join(sandbox.root, "bin"), sandbox.env.PATH);
        sandbox.env.PATH = bin;
        assert(!(await exists(path.join(bin, "rg"))), "rg is still on the test's PATH");
        assert(
          await exists(path.join(bin, "git")),
          "git must be on PATH for the attack to mean anything",
        );
        // `git add` itself ran the hook: start from no marker.
        await Deno.remove(marker).catch(() => {});
      },
    });
    // Control: what the completion used to run, run directly, does run the repository's program.
    const control = await Deno.makeTempDir({ prefix: "skiff-mention-control-" });
    try {
      const hook = path.join(control, "fsmonitor.sh");
      const controlMarker = path.join(control, "ran");
      await Deno.writeTextFile(hook, `#!/bin/sh\ntouch '${controlMarker}'\nexit 1\n`, {
        mode: 0o755,
      });
      const repo = path.join(control, "repo");
      await Deno.mkdir(repo);
      await git(["init", "-q"], repo);
      await Deno.writeTextFile(path.join(repo, "notes-alpha.txt"), "alpha\n");
      await git(["add", "notes-alpha.txt"], repo);
      await git(["config", "core.fsmonitor", hook], repo);
      await git(["ls-files", "--cached", "--others", "--exclude-standard"], repo);
      assert(await exists(controlMarker), "control: git ls-files did not run core.fsmonitor");
    } finally {
      await Deno.remove(control, { recursive: true });
    }
    assert(workspace, "the chat never started");
  },
});
