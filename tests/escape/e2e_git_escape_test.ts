/**
 * End-to-end escape attempts on git: code planted where git will run it the
 * next time the user types a git command — the folder `core.hooksPath` names,
 * a nested repository's `.git`, `.git/commondir`, a submodule's git folder
 * under `.git/modules`, a `.git/hooks` folder that did not exist, a fresh
 * repository a command creates — and the positive side: the agent's own
 * `git add` and `git commit` still work. Each runs `skiff run --json` as a
 * real process against the scripted mock, with commands approved by `--yes`.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  type AttackSandbox,
  bash,
  exists,
  lastToolResults,
  needsBwrap,
  withAttack,
} from "./e2e_support.ts";

const HOOK = "#!/bin/sh\ntouch ../outside/hook-ran\n";

async function git(args: string[], cwd: string): Promise<string> {
  const result = await new Deno.Command("git", { args, cwd, stdout: "piped", stderr: "piped" })
    .output();
  const text = new TextDecoder().decode(result.stdout) + new TextDecoder().decode(result.stderr);
  if (!result.success) throw new Error(`git ${args.join(" ")}: ${text}`);
  return text;
}

async function readOrAbsent(file: string): Promise<string> {
  return await Deno.readTextFile(file).catch(() => "absent");
}

/** Every file a planted hook or a redirect could live in, with its content. */
async function gitState(sandbox: AttackSandbox, files: string[]): Promise<Map<string, string>> {
  const state = new Map<string, string>();
  for (const file of files) {
    state.set(file, await readOrAbsent(path.join(sandbox.workspace, file)));
  }
  return state;
}

Deno.test({
  name: "e2e git: hooks planted in the folder core.hooksPath names, existing or not, do not stay",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash(`printf '${HOOK}' > githooks/pre-commit`)] },
      {
        toolCalls: [bash(
          `mkdir -p vendor/lib/.hooks && printf '${HOOK}' > vendor/lib/.hooks/post-checkout && chmod +x vendor/lib/.hooks/post-checkout`,
        )],
      },
      { text: "done" },
    ], async (sandbox, mock) => {
      const ws = sandbox.workspace;
      // The repository uses a hooks folder of its own (as husky does)…
      await git(["config", "core.hooksPath", "githooks"], ws);
      await Deno.mkdir(path.join(ws, "githooks"));
      await Deno.writeTextFile(path.join(ws, "githooks", "pre-commit"), "#!/bin/sh\nexit 0\n");
      // …and a nested repository names one that does not exist yet.
      await git(["init", "-q", "vendor/lib"], ws);
      await git(["config", "core.hooksPath", ".hooks"], path.join(ws, "vendor", "lib"));
      const files = ["githooks/pre-commit", "vendor/lib/.hooks/post-checkout"];
      const before = await gitState(sandbox, files);

      const result = await runSkiff(["run", "--json", "--yes", "plant hooks"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(await gitState(sandbox, files), before);
      const [existing, created] = lastToolResults(mock).map((message) => message.content);
      assertStringIncludes(existing, "Read-only file system");
      assertStringIncludes(created, "denied");
      assertStringIncludes(created, "vendor/lib/.hooks");
    });
  },
});

Deno.test({
  name:
    "e2e git: a nested repository's .git, .git/commondir, .git/modules/*/hooks, a missing .git/hooks and a fresh repository keep no planted code",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash(`printf '${HOOK}' > vendor/lib/.git/hooks/pre-commit`)] },
      {
        toolCalls: [
          bash(`printf '[core]\\n\\tfsmonitor = touch ran\\n' >> vendor/lib/.git/config`),
        ],
      },
      { toolCalls: [bash(`printf '../evil\\n' > .git/commondir; cat .git/commondir`)] },
      { toolCalls: [bash(`printf '${HOOK}' > .git/modules/lib/hooks/post-checkout`)] },
      { toolCalls: [bash(`mkdir -p .git/hooks && printf '${HOOK}' > .git/hooks/pre-commit`)] },
      {
        toolCalls: [bash(
          `git init -q fresh && printf '${HOOK}' > fresh/.git/hooks/pre-commit && chmod +x fresh/.git/hooks/pre-commit`,
        )],
      },
      { text: "done" },
    ], async (sandbox, mock) => {
      const ws = sandbox.workspace;
      await git(["init", "-q", "vendor/lib"], ws);
      // A submodule's repository lives under .git/modules, its checkout holds a .git file.
      await Deno.mkdir(path.join(ws, ".git", "modules"));
      await git(["init", "-q", "--separate-git-dir", path.join(ws, ".git/modules/lib"), "sub"], ws);
      // A repository whose hooks folder is missing (some clones and tools leave none).
      await Deno.remove(path.join(ws, ".git", "hooks"), { recursive: true });
      const files = [
        "vendor/lib/.git/hooks/pre-commit",
        "vendor/lib/.git/config",
        ".git/commondir",
        ".git/modules/lib/hooks/post-checkout",
        ".git/hooks/pre-commit",
        "fresh/.git/hooks/pre-commit",
      ];
      const before = await gitState(sandbox, files);

      const result = await runSkiff(["run", "--json", "--yes", "plant hooks"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(await gitState(sandbox, files), before);
      const results = lastToolResults(mock).map((message) => message.content);
      assertStringIncludes(results[0], "Read-only file system");
      assertStringIncludes(results[1], "Read-only file system");
      for (const content of results.slice(2)) assert(/denied|Read-only/.test(content), content);
      // git in the repository still works, and a fresh repository created by a command stays.
      await git(["status", "--short"], ws);
      assert(await exists(path.join(ws, "fresh", ".git", "HEAD")), "fresh repository kept");
      assertEquals(await exists(path.join(sandbox.outside, "hook-ran")), false);
    });
  },
});

Deno.test({
  name: "e2e git: the agent's own git add and git commit work under --allow 'bash(git *)'",
  ...needsBwrap,
  fn: async () => {
    await withAttack([
      { toolCalls: [bash("echo beta > b.txt")] },
      { toolCalls: [bash("git add b.txt && git commit -q -m 'add b' && git log --oneline")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const ws = sandbox.workspace;
      await git(["config", "user.email", "agent@example.com"], ws);
      await git(["config", "user.name", "agent"], ws);
      const result = await runSkiff(
        ["run", "--json", "--allow", "bash(echo *)", "--allow", "bash(git *)", "commit b"],
        sandbox,
      );
      assertEquals(result.code, 0, result.stderr);
      const [, committed] = lastToolResults(mock).map((message) => message.content);
      assertStringIncludes(committed, "add b");
      assertStringIncludes(committed, "exit code: 0");
      assertStringIncludes(await git(["log", "--oneline"], ws), "add b");
      assertEquals(await git(["status", "--short"], ws), "");
    });
  },
});

Deno.test({
  name: "e2e git: a bare repository planted in the workspace does not run its config's programs",
  ...needsBwrap,
  fn: async () => {
    // A folder that looks like a bare repository, whose config names a
    // program git runs on `fetch` (remote.origin.uploadpack). Under
    // `bash(git *)`, `git -C planted fetch origin` is a plain git command;
    // git must not take the folder for a repository unless told so explicitly.
    const write = (file: string, content: string) => ({
      name: "write",
      arguments: { file_path: `planted/${file}`, content },
    });
    await withAttack([
      {
        toolCalls: [
          write("HEAD", "ref: refs/heads/main\n"),
          write("objects/.keep", ""),
          write("refs/.keep", ""),
          write(
            "config",
            '[core]\n\tbare = true\n[remote "origin"]\n\turl = .\n\tuploadpack = touch upload-ran; false\n',
          ),
        ],
      },
      { toolCalls: [bash("git -C planted fetch origin")] },
      { text: "done" },
    ], async (sandbox, mock) => {
      const result = await runSkiff(
        ["run", "--json", "--allow", "bash(git *)", "go"],
        sandbox,
      );
      assert(result.code === 0 || result.code === 3, result.stderr);
      const results = lastToolResults(mock);
      assertEquals(results.length, 5, result.stdout);
      assert(await exists(path.join(sandbox.workspace, "planted", "config")), results[3].content);
      assert(
        !(await exists(path.join(sandbox.workspace, "planted", "upload-ran"))),
        `the planted repository's upload-pack program ran: ${results[4].content}`,
      );
    });
  },
});
