/**
 * Command undo runs git on the workspace outside any sandbox, so a hostile
 * repository's own git config must not reach it: a `core.fsmonitor` command
 * and a clean filter planted in `.git/config` run under plain git in the
 * same workspace (the control), and never while undo snapshots it.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { type CommandChange, CommandSnapshots } from "../../src/undo/command_snapshots.ts";

function plainGit(args: string[], cwd: string, home: string): Deno.CommandOutput {
  return new Deno.Command("git", {
    args,
    cwd,
    clearEnv: true,
    env: { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin", HOME: home },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).outputSync();
}

function readOrEmpty(file: string): string {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return "";
  }
}

Deno.test("command snapshots: a repository's fsmonitor and filter commands never run", async () => {
  const root = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-snap-gitconfig-" }));
  const workspace = `${root}/ws`;
  const marker = `${root}/ran`;
  try {
    Deno.mkdirSync(workspace);
    assert(plainGit(["init", "--quiet"], workspace, root).success, "git init");
    // What a hostile clone could carry: each command notes that it ran.
    const script = `${root}/planted.sh`;
    Deno.writeTextFileSync(script, `#!/bin/sh\necho "$SKIFF_PLANTED" >> '${marker}'\ncat\n`);
    Deno.chmodSync(script, 0o755);
    Deno.writeTextFileSync(
      `${workspace}/.git/config`,
      Deno.readTextFileSync(`${workspace}/.git/config`) +
        `[core]\n\tfsmonitor = SKIFF_PLANTED=fsmonitor ${script} </dev/null\n` +
        `[filter "planted"]\n\tclean = SKIFF_PLANTED=filter ${script}\n`,
    );
    Deno.writeTextFileSync(`${workspace}/.gitattributes`, "* filter=planted\n");
    Deno.writeTextFileSync(`${workspace}/a.txt`, "before\n");

    // Control: plain git in the workspace runs both.
    assert(plainGit(["add", "-A"], workspace, root).success, "plain git add");
    const ranUnderPlainGit = readOrEmpty(marker);
    assert(ranUnderPlainGit.includes("fsmonitor"), `fsmonitor did not run: ${ranUnderPlainGit}`);
    assert(ranUnderPlainGit.includes("filter"), `filter did not run: ${ranUnderPlainGit}`);
    Deno.removeSync(marker);

    const warnings: string[] = [];
    const recorded: CommandChange[] = [];
    const snapshots = new CommandSnapshots({
      workspace,
      dataDir: `${root}/data`,
      sessionId: "ses_planted",
      record: (changes) => recorded.push(...changes),
      warn: (message) => warnings.push(message),
    });
    const after = await snapshots.before();
    Deno.writeTextFileSync(`${workspace}/a.txt`, "after\n");
    await after();

    assertEquals(readOrEmpty(marker), "", "a command from the repository's config ran");
    assertEquals(warnings, []);
    const change = recorded.find((entry) => entry.path === `${workspace}/a.txt`);
    assertEquals(new TextDecoder().decode(change?.before ?? undefined), "before\n");
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});
