/**
 * The command guard's refusal names what protected the path: a path only
 * `--protect`/`sandbox.protect` covers is not "a file that runs code later"
 * (a test the agent may not edit is not a git hook), and a mix says both.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { CommandGuard } from "../../src/sandbox/guard/command_guard.ts";

function workspace(): string {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-guard-wording-" }));
  const init = new Deno.Command("git", { args: ["init", "-q"], cwd: ws, stdout: "null" })
    .outputSync();
  if (!init.success) throw new Error("git init failed");
  return ws;
}

const CODE_LATER =
  "files that run code later outside the sandbox (git hooks and config, editor tasks, .envrc, agent settings and commands, CI workflows, package manager and mise config, skiff's config)";

Deno.test("command guard: a path only --protect covers is refused as protected, naming the pattern", () => {
  const ws = workspace();
  try {
    Deno.mkdirSync(path.join(ws, "tests"));
    Deno.writeTextFileSync(path.join(ws, "tests", "value_test.sh"), "test 3 = 3\n");
    const check = new CommandGuard({ roots: [ws], protect: ["tests/**"] }).before();
    Deno.writeTextFileSync(path.join(ws, "tests", "value_test.sh"), "true\n");
    assertEquals(
      check(),
      "Permission denied: commands may not create or change paths protected by sandbox.protect " +
        "or --protect (tests/**). skiff reverted:\n- tests/value_test.sh: changed, restored",
    );
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: a built-in code path keeps its wording; with a --protect path both are named", () => {
  const ws = workspace();
  try {
    const guard = new CommandGuard({ roots: [ws], protect: ["tests/**"] });
    let check = guard.before();
    Deno.writeTextFileSync(path.join(ws, ".envrc"), "export A=1\n");
    assertEquals(
      check(),
      `Permission denied: commands may not create or change ${CODE_LATER}. skiff reverted:\n` +
        "- .envrc: created, removed",
    );
    Deno.mkdirSync(path.join(ws, "tests"));
    check = guard.before();
    Deno.writeTextFileSync(path.join(ws, ".envrc"), "export A=1\n");
    Deno.writeTextFileSync(path.join(ws, "tests", "new_test.sh"), "true\n");
    const report = check() ?? "";
    assertEquals(
      report.split("\n")[0],
      `Permission denied: commands may not create or change ${CODE_LATER}, nor paths protected ` +
        "by sandbox.protect or --protect (tests/**). skiff reverted:",
    );
    assertEquals(report.split("\n").slice(1).sort(), [
      "- .envrc: created, removed",
      "- tests/new_test.sh: created, removed",
    ]);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});
