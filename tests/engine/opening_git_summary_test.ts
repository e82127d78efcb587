/**
 * `skiff run` begins its system prompt's git summary while the session opens
 * (SessionSelector.promptNext, engine/session_parts.ts), so the contained git
 * runs beside the rest of the opening. What the model is told must not
 * change: the summary of the workspace as the prompt is sent, and a later
 * run, opened without it, sees the workspace as it is then.
 */
import { assertEquals } from "../support/assert.ts";
import { runSkiff, withMockSandbox } from "../support/cli.ts";

const hasBwrap = await new Deno.Command("bwrap", {
  args: ["--ro-bind", "/", "/", "true"],
  stdout: "null",
  stderr: "null",
}).output().then((result) => result.success, () => false);
if (!hasBwrap) {
  console.warn(
    "opening_git_summary_test: SKIPPED: bubblewrap does not work here, and the git summary " +
      "runs only contained; install bwrap (and allow user namespaces) to run these tests.",
  );
}

async function git(cwd: string, ...args: string[]) {
  const result = await new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .output();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

/** The `Git:` line of each request's system message. */
function gitLines(requests: Record<string, unknown>[]): string[] {
  return requests.map((request) => {
    const messages = request.messages as { role: string; content: string }[];
    const system = messages.find((message) => message.role === "system")!.content;
    return system.split("\n").find((line) => line.startsWith("Git: "))!;
  });
}

Deno.test({
  name:
    "skiff run: the git summary begun at the opening is the workspace's; a later run sees it changed",
  ignore: !hasBwrap,
  fn: () =>
    withMockSandbox([{ text: "one" }, { text: "two" }], async (sandbox, mock) => {
      await git(sandbox.workspace, "init", "-q", "-b", "trunk");
      await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a");
      const first = await runSkiff(["run", "--sandbox", "read-only", "first"], sandbox);
      assertEquals(first.code, 0, first.stderr);
      await Deno.writeTextFile(`${sandbox.workspace}/b.txt`, "b");
      const second = await runSkiff(["run", "--continue", "second"], sandbox);
      assertEquals(second.code, 0, second.stderr);
      assertEquals(gitLines(mock.requests), [
        "Git: branch trunk, clean, 1 untracked",
        "Git: branch trunk, clean, 2 untracked",
      ]);
    }),
});

Deno.test({
  name: "skiff run: a new session in the default sandbox mode is told the git summary too",
  ignore: !hasBwrap,
  fn: () =>
    withMockSandbox([{ text: "ok" }], async (sandbox, mock) => {
      await git(sandbox.workspace, "init", "-q", "-b", "main");
      await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, "a");
      await git(sandbox.workspace, "add", "a.txt");
      const result = await runSkiff(["run", "hi"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(gitLines(mock.requests), ["Git: branch main, 1 changed file(s)"]);
    }),
});
