/**
 * `skiff batch --each … --until '<command>'`: the command gets each task's
 * `{file}`, `{dir}`, `{name}`, quoted for the shell (a file named `$(…)` by
 * a repository stays a name), and the hint under a task whose check never
 * passed names that task's own session, so `skiff undo --cycle` takes back
 * that task's attempt and no other task's.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, type Sandbox, withMockSandbox } from "../support/cli.ts";
import { writerResponder } from "../support/batch_tasks.ts";

const FILES = ["a.txt", "b.txt", "c.txt", "d.txt"];

async function seed(sandbox: Sandbox, names = FILES): Promise<void> {
  await Deno.mkdir(path.join(sandbox.workspace, "src"));
  for (const name of names) {
    await Deno.writeTextFile(path.join(sandbox.workspace, "src", name), "empty\n");
  }
}

const content = (sandbox: Sandbox, name: string) =>
  Deno.readTextFile(path.join(sandbox.workspace, "src", name));

Deno.test("batch --until fills {file}, {dir} and {name} for each task", async () => {
  await withMockSandbox([], async (sandbox) => {
    await seed(sandbox);
    const result = await runSkiff([
      "batch",
      "--each",
      "src/*.txt",
      "--prompt",
      "write {file}",
      "--until",
      "grep -q made {file} && test -d {dir} && test {name} = $(basename {file})",
      "--json",
    ], sandbox);
    assertEquals(result.code, 0, result.stderr);
    for (const name of FILES) assertEquals(await content(sandbox, name), `made by src/${name}\n`);
    const passed = parseJsonLines(result.stdout).filter((event) =>
      event.type === "session.completed" &&
      (event.verification as { passed: boolean } | undefined)?.passed === true
    );
    assertEquals(passed.length, FILES.length, result.stdout);
  }, { respond: writerResponder });
});

Deno.test("batch --until: a file name that is a shell command stays a name", async () => {
  const hostile = "$(touch${IFS}pwned).txt";
  await withMockSandbox([], async (sandbox) => {
    await seed(sandbox, ["a.txt", hostile]);
    // Control: the same command with the name put in unquoted runs what the name says.
    const control = new Deno.Command("bash", {
      args: ["-c", `grep -q made src/${hostile}`],
      cwd: sandbox.workspace,
      stderr: "null",
    }).outputSync();
    assertEquals(control.success, false);
    assert(Deno.statSync(path.join(sandbox.workspace, "pwned")).isFile, "the control ran it");
    await Deno.remove(path.join(sandbox.workspace, "pwned"));

    const result = await runSkiff(
      [
        "batch",
        "--each",
        "src/*.txt",
        "--prompt",
        "write {file}",
        "--until",
        "grep -q made {file}",
      ],
      sandbox,
    );
    assertEquals(await content(sandbox, hostile), `made by src/${hostile}\n`);
    assertEquals(result.code, 0, result.stderr);
    const pwned = await Deno.stat(path.join(sandbox.workspace, "pwned")).then(
      () => true,
      () => false,
    );
    assertEquals(pwned, false, "the file name ran as a command");
  }, { respond: writerResponder });
});

Deno.test("batch --until: a placeholder inside the template's own quotes is refused up front", async () => {
  await withMockSandbox([], async (sandbox, mock) => {
    await seed(sandbox);
    for (const until of ["grep -q made '{file}'", 'grep -q made "src/{name}"']) {
      const result = await runSkiff(
        ["batch", "--each", "src/*.txt", "--prompt", "write {file}", "--until", until],
        sandbox,
      );
      assertEquals(result.code, 2, result.stderr);
      assertStringIncludes(result.stderr, "outside quotes; skiff quotes each value");
    }
    assertEquals(mock.requests.length, 0);
  }, { respond: writerResponder });
});

Deno.test("batch --until: the undo hint under a failed task names that task's session", async () => {
  await withMockSandbox([], async (sandbox) => {
    await seed(sandbox);
    const report = path.join(sandbox.root, "report.json");
    // Only a.txt's check can never pass.
    const result = await runSkiff([
      "batch",
      "--each",
      "src/*.txt",
      "--prompt",
      "write {file}",
      "--until",
      "test {name} != a.txt",
      "--max-cycles",
      "1",
      "--report",
      report,
    ], sandbox);
    assertEquals(result.code, 1, result.stderr);
    const tasks = JSON.parse(await Deno.readTextFile(report)).tasks as {
      id: string;
      status: string;
      sessionId: string;
      detail: string;
    }[];
    const failed = tasks.find((task) => task.id === "src/a.txt")!;
    assertEquals(failed.status, "failed");
    assertEquals(tasks.filter((task) => task.status === "succeeded").length, 3);
    const hint = `skiff undo --cycle --session ${failed.sessionId}`;
    assertStringIncludes(failed.detail, hint);

    // The hint, run as printed, takes back a.txt's attempt and leaves the other tasks' files.
    const undone = await runSkiff(hint.split(" ").slice(1), sandbox);
    assertEquals(undone.code, 0, undone.stdout + undone.stderr);
    assertEquals(await content(sandbox, "a.txt"), "empty\n");
    for (const name of FILES.slice(1)) {
      assertEquals(await content(sandbox, name), `made by src/${name}\n`);
    }
  }, { respond: writerResponder });
});
