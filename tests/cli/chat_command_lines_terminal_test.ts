/**
 * A Claude Code command file with `` !`command` `` lines and `@path`s, in the
 * chat at a real terminal (tmux) against the scripted mock: written in the
 * shape of a commit-push-pr command (frontmatter with `allowed-tools`, git
 * status and diff lines, a README mention) in a real git repository, its
 * commands run through the bash tool's path and the model receives their
 * output and the file; a command a rule denies is a note, and the rest runs.
 */
import * as path from "node:path";
import { assert, assertStringIncludes } from "../support/assert.ts";
import type { Sandbox } from "../support/cli.ts";
import { hasTmux, inChat, press, shows, typeLine, warnWithoutTmux } from "../support/chat_tmux.ts";

warnWithoutTmux("custom command lines (!`command`, @path) in the chat");

/** Our own command text, in the shape of Claude Code's commit-push-pr command. */
export const COMMIT_PUSH_PR = `---
allowed-tools: Bash(git checkout --branch:*), Bash(git add:*), Bash(git status:*), Bash(git push:*), Bash(git commit:*), Bash(gh pr create:*)
description: Commit the work, push it and open a pull request
---

## What is there

- The working tree: !\`git status\`
- Every change since the last commit: !\`git diff HEAD\`
- The branch: !\`git branch --show-current\`
- What the project is: @README.md

## What to do

From the changes above: make a branch if this is main, commit with a message that fits,
push it, and open a pull request. Do it in one reply, with tool calls only.
`;

const DIFF_MARKER = "CHANGED-LINE-7f3a";
const README_MARKER = "README-MARKER-91c2";

async function git(cwd: string, ...args: string[]): Promise<void> {
  const output = await new Deno.Command("git", {
    args: ["-c", "user.name=Test", "-c", "user.email=test@example.com", ...args],
    cwd,
    stdout: "null",
    stderr: "piped",
  }).output();
  if (!output.success) {
    throw new Error(`git ${args.join(" ")}: ${new TextDecoder().decode(output.stderr)}`);
  }
}

/** A git repository with one commit, a change to it, and the command file; `config` is the user's. */
async function repositoryWithCommand(sandbox: Sandbox, config: unknown): Promise<void> {
  const ws = sandbox.workspace;
  await Deno.writeTextFile(path.join(ws, "README.md"), `# Demo\n\n${README_MARKER}\n`);
  await Deno.writeTextFile(path.join(ws, "app.txt"), "one\n");
  await git(ws, "init", "-q", "-b", "main");
  await git(ws, "add", ".");
  await git(ws, "commit", "-q", "-m", "first");
  await Deno.writeTextFile(path.join(ws, "app.txt"), `one\n${DIFF_MARKER}\n`);
  await Deno.mkdir(path.join(ws, ".claude/commands"), { recursive: true });
  await Deno.writeTextFile(path.join(ws, ".claude/commands/commit-push-pr.md"), COMMIT_PUSH_PR);
  await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify(config));
}

Deno.test({
  name:
    "chat /commit-push-pr: its git status, git diff and branch lines run, and the model gets their output and the README",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Committed and opened." }], async (session, _sandbox, mock) => {
      await typeLine(session, "/commit-push-pr");
      const screen = await shows(session, "Committed and opened.", { history: 400 });
      // What you typed shows first, then each line as a tool call of its own.
      const typed = screen.indexOf("› /commit-push-pr");
      assert(typed >= 0 && typed < screen.indexOf("bash git status"), `order:\n${screen}`);
      assertStringIncludes(screen, "# a line of /commit-push-pr");
      assert(!screen.includes("wants permission"), `asked although rules allow:\n${screen}`);
      const sent = JSON.stringify(mock.requests[0]?.messages);
      // git status names the changed file; the diff carries the added line; the branch is main.
      assertStringIncludes(sent, "modified:   app.txt");
      assertStringIncludes(sent, `+${DIFF_MARKER}`);
      assertStringIncludes(sent, "- The branch:\\n```\\nmain\\n```");
      assertStringIncludes(sent, README_MARKER);
      assertStringIncludes(sent, '<file path=\\"README.md\\">');
      assert(!sent.includes("!`git status`"), "the command line was sent verbatim");
    }, {
      prefix: "skiff-cmdline",
      // Your own rules let the three commands run; the command's allowed-tools is not one.
      prepare: (sandbox) =>
        repositoryWithCommand(sandbox, {
          permission: {
            bash: { "git status": "allow", "git diff *": "allow", "git branch *": "allow" },
          },
        }),
    });
  },
});

Deno.test({
  name:
    "chat /commit-push-pr: a line a rule denies does not run and is a note to the model; the other lines still run",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Noted." }], async (session, _sandbox, mock) => {
      await typeLine(session, "/commit-push-pr");
      const screen = await shows(session, "Noted.", { history: 400 });
      assert(!screen.includes("wants permission"), `asked although a rule denies:\n${screen}`);
      const sent = JSON.stringify(mock.requests[0]?.messages);
      assertStringIncludes(sent, "(`git diff HEAD` did not run:");
      assertStringIncludes(sent, "bash(git diff *) → deny");
      assert(!sent.includes(DIFF_MARKER), "the denied diff reached the model");
      assertStringIncludes(sent, "modified:   app.txt");
      assertStringIncludes(sent, README_MARKER);
    }, {
      prefix: "skiff-cmdline-deny",
      prepare: (sandbox) =>
        repositoryWithCommand(sandbox, {
          permission: {
            bash: { "git status": "allow", "git diff *": "deny", "git branch *": "allow" },
          },
        }),
    });
  },
});

Deno.test({
  name:
    "chat custom command: Esc during a line stops it, no later line runs, the model is not asked, and the command stays typed",
  ignore: !hasTmux,
  async fn() {
    await inChat([{ text: "Never asked." }], async (session, sandbox, mock) => {
      await typeLine(session, "/slow");
      await shows(session, "sleep 20");
      const started = Date.now();
      await press(session, "Escape");
      const screen = await shows(session, "skiff: interrupted", { history: 400 });
      assert(Date.now() - started < 15_000, "the line was not stopped");
      assert(mock.requests.length === 0, `the model was asked:\n${screen}`);
      const after = await Deno.stat(path.join(sandbox.workspace, "after-stop.txt"))
        .then(() => true, () => false);
      assert(!after, "a line after the stop ran");
      assert(/^> \/slow\s*$/m.test(screen), `the command is not back in the input:\n${screen}`);
    }, {
      prefix: "skiff-cmdline-stop",
      prepare: async (sandbox) => {
        await Deno.mkdir(path.join(sandbox.workspace, ".claude/commands"), { recursive: true });
        await Deno.writeTextFile(
          path.join(sandbox.workspace, ".claude/commands/slow.md"),
          "Wait: !`sleep 20`\nThen: !`touch after-stop.txt`\n",
        );
        await Deno.writeTextFile(
          path.join(sandbox.configDir, "config.json"),
          JSON.stringify({ permission: { bash: { "sleep *": "allow", "touch *": "allow" } } }),
        );
      },
    });
  },
});
