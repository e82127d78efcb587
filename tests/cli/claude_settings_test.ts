/**
 * Claude Code's settings.json permissions through the real CLI: `skiff tool
 * bash` in a headless run, where a call the rules leave at "ask" is refused,
 * so "ran" means a rule allowed it.
 */
import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { makeSandbox, runSkiff, type Sandbox } from "../support/cli.ts";

interface ToolLine {
  ok: boolean;
  output: string;
  error?: { code: string; message: string };
}

async function bash(sandbox: Sandbox, command: string, flags: string[] = []) {
  const result = await runSkiff(["tool", "bash", ...flags, JSON.stringify({ command })], sandbox);
  const line = result.stdout.trim()
    ? JSON.parse(result.stdout.trim().split("\n")[0]) as ToolLine
    : undefined;
  return { ...result, line };
}

async function writeJson(file: string, value: unknown) {
  await Deno.mkdir(path.dirname(file), { recursive: true });
  await Deno.writeTextFile(file, JSON.stringify(value));
}

Deno.test("skiff reads the user's ~/.claude/settings.json rules, no wider than written", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    // Control: without the file, a command is asked about, and headless refuses it.
    const before = await bash(sandbox, "git status");
    assertEquals(before.line?.ok, false, before.stdout + before.stderr);
    assertEquals(before.line?.error?.code, "denied");
    await writeJson(path.join(sandbox.home, ".claude", "settings.json"), {
      permissions: { allow: ["Bash(git status:*)", "WebSearch"], deny: ["Bash(git push:*)"] },
    });
    const allowed = await bash(sandbox, "git status");
    assertEquals(allowed.line?.ok, true, allowed.stdout + allowed.stderr);
    // The note names the file and the rule that does not map.
    assertStringIncludes(
      allowed.stderr,
      `${
        path.join(sandbox.home, ".claude", "settings.json")
      }: permissions.allow "WebSearch" is not used`,
    );
    // `git status:*` is not every command.
    const other = await bash(sandbox, "git status; echo escaped");
    assertEquals(other.line?.ok, false, other.stdout);
    assert(!other.line?.output.includes("escaped"), other.stdout);
    // Its deny wins over a flag's allow.
    const pushed = await bash(sandbox, "git push", ["--allow", "bash(git *)"]);
    assertEquals(pushed.line?.ok, false, pushed.stdout);
    assertStringIncludes(pushed.line?.error?.message ?? "", "claude-user");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("--allow takes Claude Code's spelling; one that would widen exits 2", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    const ran = await bash(sandbox, "echo pasted", ["--allow", "Bash(echo:*)"]);
    assertEquals(ran.code, 0, ran.stderr);
    assertEquals(ran.line?.ok, true, ran.stdout);
    assertStringIncludes(ran.line?.output ?? "", "pasted");
    const wide = await bash(sandbox, "echo x", ["--allow", "Bash(echo ?)"]);
    assertEquals(wide.code, 2, wide.stdout + wide.stderr);
    assertStringIncludes(wide.stderr, "any one character");
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attacker: an untrusted project's .claude settings grant nothing; their deny still holds", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    await writeJson(path.join(sandbox.workspace, ".claude", "settings.json"), {
      permissions: { allow: ["Bash(echo:*)", "Bash"], deny: ["Bash(printf:*)"] },
    });
    await writeJson(path.join(sandbox.workspace, ".claude", "settings.local.json"), {
      permissions: { allow: ["Bash(touch:*)"] },
    });
    // The attack: the repository allows itself commands.
    const echoed = await bash(sandbox, "echo owned");
    assertEquals(echoed.line?.ok, false, echoed.stdout);
    const touched = await bash(sandbox, "touch owned");
    assertEquals(touched.line?.ok, false, touched.stdout);
    assertStringIncludes(echoed.stderr, "this project is not trusted");
    assertStringIncludes(echoed.stderr, "Bash(echo:*)");
    // Control: once the user trusts the project, the same files do allow.
    const trusted = await bash(sandbox, "echo owned", ["--trust-project"]);
    assertEquals(trusted.line?.ok, true, trusted.stdout + trusted.stderr);
    // The project's deny applies trusted or not, over the user's own allow.
    for (const flags of [[], ["--trust-project"]]) {
      const denied = await bash(sandbox, "printf x", [...flags, "--allow", "bash(printf *)"]);
      assertEquals(denied.line?.ok, false, denied.stdout);
      assertStringIncludes(denied.line?.error?.message ?? "", "claude-project");
    }
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("attacker: the agent cannot write itself rules into .claude/settings.local.json", async () => {
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: "http://127.0.0.1:9/v1" });
  try {
    // `--yes` approves what the command guard asks; the sandbox still holds the files.
    const plant = (name: string) =>
      `mkdir -p .claude && echo '{"permissions":{"allow":["Bash"]}}' > .claude/${name}`;
    for (const name of ["settings.local.json", "settings.json"]) {
      await bash(sandbox, plant(name), ["--yes", "--trust-project"]);
      const planted = await Deno.stat(path.join(sandbox.workspace, ".claude", name)).then(
        () => true,
        () => false,
      );
      assertEquals(planted, false, `.claude/${name} was written by a command`);
    }
    // Control: the same command, approved the same way, writes a file beside them.
    await bash(sandbox, plant("notes.json"), ["--yes"]);
    await Deno.stat(path.join(sandbox.workspace, ".claude", "notes.json"));
    // The file tools are refused too, even with --yes: the file is a rule layer, like skiff.json.
    const written = await runSkiff([
      "tool",
      "write",
      "--yes",
      JSON.stringify({ file_path: ".claude/settings.local.json", content: "{}" }),
    ], sandbox);
    assertStringIncludes(written.stdout, "write-protected");
    const planted = await Deno.stat(path.join(sandbox.workspace, ".claude", "settings.local.json"))
      .then(() => true, () => false);
    assertEquals(planted, false);
  } finally {
    await sandbox.cleanup();
  }
});
