import * as path from "node:path";
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { CommandGuard } from "../../../src/sandbox/guard/command_guard.ts";
import { mergeLayers } from "../../../src/config/load.ts";
import { ConfigSchema } from "../../../src/config/schema.ts";
import { CODE_PATHS, codePathProblem, matchingCodePath } from "../../../src/sandbox/code_paths.ts";
import { exists } from "../../../src/definitions/agents/discovery.ts";

function git(args: string[], cwd: string): void {
  const result = new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .outputSync();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

function workspace(): string {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-guard-" }));
  git(["init", "-q"], ws);
  return ws;
}

const read = (file: string) => {
  try {
    return Deno.readTextFileSync(file);
  } catch {
    return "absent";
  }
};

Deno.test("command guard: created code files are removed, changed ones restored with their mode, the rest kept", () => {
  const ws = workspace();
  try {
    Deno.mkdirSync(path.join(ws, ".vscode"));
    Deno.writeTextFileSync(path.join(ws, ".vscode", "tasks.json"), "{}\n");
    Deno.writeTextFileSync(path.join(ws, ".envrc"), "export A=1\n", { mode: 0o640 });
    Deno.chmodSync(path.join(ws, ".envrc"), 0o640);
    const check = new CommandGuard({ roots: [ws] }).before();
    // What a hostile command does:
    Deno.writeTextFileSync(path.join(ws, ".vscode", "tasks.json"), '{"tasks": ["id"]}\n');
    Deno.removeSync(path.join(ws, ".envrc"));
    Deno.mkdirSync(path.join(ws, ".github", "workflows"), { recursive: true });
    Deno.writeTextFileSync(path.join(ws, ".github", "workflows", "x.yml"), "on: push\n");
    Deno.writeTextFileSync(path.join(ws, ".git", "hooks", "pre-commit"), "#!/bin/sh\nid\n");
    Deno.writeTextFileSync(path.join(ws, ".git", "commondir"), "../elsewhere\n");
    Deno.writeTextFileSync(path.join(ws, "notes.txt"), "work\n");
    const report = check();
    assert(report !== null);
    assertStringIncludes(report, "Permission denied");
    for (const shown of [".vscode/tasks.json: changed, restored", ".envrc: removed, restored"]) {
      assertStringIncludes(report, shown);
    }
    assertEquals(read(path.join(ws, ".vscode", "tasks.json")), "{}\n");
    assertEquals(read(path.join(ws, ".envrc")), "export A=1\n");
    assertEquals(Deno.statSync(path.join(ws, ".envrc")).mode! & 0o777, 0o640);
    for (const gone of [".github", ".git/hooks/pre-commit", ".git/commondir"]) {
      assertEquals(read(path.join(ws, gone)), "absent", gone);
    }
    assertEquals(read(path.join(ws, "notes.txt")), "work\n");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: git add and git commit change nothing it guards; a quiet command reports nothing", () => {
  const ws = workspace();
  try {
    git(["config", "user.email", "a@example.com"], ws);
    git(["config", "user.name", "a"], ws);
    const guard = new CommandGuard({ roots: [ws] });
    const check = guard.before();
    Deno.writeTextFileSync(path.join(ws, "a.txt"), "a\n");
    git(["add", "a.txt"], ws);
    git(["commit", "-q", "-m", "a"], ws);
    assertEquals(check(), null);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: a fresh repository keeps its history but not planted hooks, config programs or a redirecting .git file", () => {
  const ws = workspace();
  try {
    const check = new CommandGuard({ roots: [ws] }).before();
    git(["init", "-q", "fresh"], ws);
    Deno.writeTextFileSync(path.join(ws, "fresh", ".git", "hooks", "post-checkout"), "id\n");
    git(["init", "-q", "tool"], ws);
    git(["config", "core.fsmonitor", "id"], path.join(ws, "tool"));
    git(["init", "-q", "--bare", "planted"], ws);
    Deno.mkdirSync(path.join(ws, "sub"));
    Deno.writeTextFileSync(path.join(ws, "sub", ".git"), "gitdir: ../planted\n");
    const report = check() ?? "";
    assertStringIncludes(report, "fresh/.git/hooks/post-checkout");
    assertStringIncludes(report, "tool/.git/config");
    assertStringIncludes(report, "sub/.git");
    assertEquals(read(path.join(ws, "fresh", ".git", "hooks", "post-checkout")), "absent");
    assert(read(path.join(ws, "fresh", ".git", "HEAD")) !== "absent");
    assert(read(path.join(ws, "fresh", ".git", "hooks", "pre-commit.sample")) !== "absent");
    assertEquals(read(path.join(ws, "tool", ".git", "config")), "absent");
    assertEquals(read(path.join(ws, "sub", ".git")), "absent");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: sandbox.protect adds paths; node_modules is not the user's", () => {
  const ws = workspace();
  try {
    const check = new CommandGuard({ roots: [ws], protect: ["Makefile", "scripts/*.sh"] }).before();
    Deno.writeTextFileSync(path.join(ws, "Makefile"), "all:\n\tid\n");
    Deno.mkdirSync(path.join(ws, "scripts"));
    Deno.writeTextFileSync(path.join(ws, "scripts", "deploy.sh"), "id\n");
    Deno.writeTextFileSync(path.join(ws, "scripts", "notes.md"), "kept\n");
    Deno.mkdirSync(path.join(ws, "node_modules", "pkg", ".github", "workflows"), {
      recursive: true,
    });
    Deno.writeTextFileSync(
      path.join(ws, "node_modules", "pkg", ".github", "workflows", "ci.yml"),
      "x",
    );
    const report = check() ?? "";
    assertStringIncludes(report, "Makefile");
    assertStringIncludes(report, "scripts/deploy.sh");
    assertEquals(read(path.join(ws, "scripts", "notes.md")), "kept\n");
    assertEquals(read(path.join(ws, "node_modules", "pkg", ".github", "workflows", "ci.yml")), "x");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: a created *.code-workspace, mise.*.toml, .npmrc or command file is found by its name and removed", () => {
  const ws = workspace();
  try {
    const check = new CommandGuard({ roots: [ws] }).before();
    Deno.writeTextFileSync(path.join(ws, "team.code-workspace"), '{"tasks": {}}');
    Deno.writeTextFileSync(path.join(ws, "mise.dev.toml"), "[hooks]\nenter = 'id'\n");
    Deno.mkdirSync(path.join(ws, "sub"));
    Deno.writeTextFileSync(path.join(ws, "sub", ".npmrc"), "node-options=--require ./x.js\n");
    Deno.mkdirSync(path.join(ws, ".claude", "commands"), { recursive: true });
    Deno.writeTextFileSync(
      path.join(ws, ".claude", "commands", "deploy.md"),
      "---\nagent: build\n---\nx",
    );
    Deno.writeTextFileSync(path.join(ws, "notes.workspace"), "kept\n");
    const report = check() ?? "";
    for (
      const name of [
        "team.code-workspace",
        "mise.dev.toml",
        "sub/.npmrc",
        ".claude/commands/deploy.md",
      ]
    ) {
      assertStringIncludes(report, name);
    }
    for (const name of ["team.code-workspace", "mise.dev.toml", "sub/.npmrc", ".claude"]) {
      assertEquals(exists(path.join(ws, name)), false, name);
    }
    assertEquals(read(path.join(ws, "notes.workspace")), "kept\n");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("code paths: matched at any depth, first name literal, errors say what to write", () => {
  const table: [string, string | null][] = [
    [".envrc", ".envrc"],
    ["sub/.envrc", ".envrc"],
    [".vscode/tasks.json", ".vscode/tasks.json"],
    [".vscode/extensions.json", null],
    [".github/workflows/ci.yml", ".github/workflows/**"],
    [".github/CODEOWNERS", null],
    [".claude/skills/a/SKILL.md", null],
    ["src/envrc.ts", null],
    [".vscode/mcp.json", ".vscode/mcp.json"],
    ["team.code-workspace", "*.code-workspace"],
    ["code-workspace", null],
    [".devcontainer.json", ".devcontainer.json"],
    ["mise.toml", "mise.toml"],
    ["mise.dev.toml", "mise.*.toml"],
    [".mise.local.toml", ".mise.*.toml"],
    [".config/mise/conf.d/a.toml", ".config/mise/**"],
    ["sub/.npmrc", ".npmrc"],
    [".claude/commands/deploy.md", ".claude/commands/**"],
  ];
  for (const [relative, expected] of table) {
    assertEquals(matchingCodePath(relative, CODE_PATHS), expected, relative);
  }
  assertEquals(codePathProblem("scripts/*.sh"), null);
  assertStringIncludes(codePathProblem("*.sh") ?? "", "plain name");
  assertStringIncludes(codePathProblem("../x") ?? "", "relative path");
  assertStringIncludes(codePathProblem("a/**/b") ?? "", "may only stand last");
});

Deno.test("config: a project's sandbox.protect adds to the user's list, and a bad pattern says what to write", () => {
  const merged = mergeLayers([
    { sandbox: { protect: ["Makefile"] } },
    { sandbox: { protect: ["deploy/**"] } },
  ]);
  assertEquals(merged.sandbox?.protect, ["Makefile", "deploy/**"]);
  const parsed = ConfigSchema.safeParse({ sandbox: { protect: ["*.sh"] } });
  assert(!parsed.success);
  assertStringIncludes(JSON.stringify(parsed.error.issues), "must start with a plain name");
});

Deno.test("command guard: a same-size rewrite is found byte for byte, and a file too large to keep by its digest", () => {
  const ws = workspace();
  try {
    // Kept whole at the survey (compared byte for byte), and one over the 1 MiB kept (by digest).
    Deno.writeTextFileSync(path.join(ws, ".envrc"), "export A=1\n");
    const large = "#".repeat(1_100_000);
    Deno.writeTextFileSync(path.join(ws, ".gitlab-ci.yml"), large);
    const guard = new CommandGuard({ roots: [ws] });
    const check = guard.before();
    Deno.writeTextFileSync(path.join(ws, ".envrc"), "export A=2\n");
    Deno.writeTextFileSync(path.join(ws, ".gitlab-ci.yml"), `${large.slice(1)}!`);
    const report = check();
    assert(report !== null);
    assertStringIncludes(report, ".envrc: changed, restored");
    assertStringIncludes(report, ".gitlab-ci.yml");
    assertEquals(read(path.join(ws, ".envrc")), "export A=1\n");
    // Nothing changed: nothing to say.
    Deno.writeTextFileSync(path.join(ws, ".gitlab-ci.yml"), large);
    assertEquals(guard.before()(), null);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("command guard: git's .sample hooks are not watched (never run), a real hook still is", () => {
  const ws = workspace();
  try {
    const hooks = path.join(ws, ".git", "hooks");
    const samples = [...Deno.readDirSync(hooks)].filter((entry) => entry.name.endsWith(".sample"));
    assert(samples.length > 0, "git init writes sample hooks");
    const check = new CommandGuard({ roots: [ws] }).before();
    Deno.writeTextFileSync(path.join(hooks, "pre-commit.sample"), "#!/bin/sh\nid\n");
    Deno.writeTextFileSync(path.join(hooks, "new-one.sample"), "#!/bin/sh\nid\n");
    Deno.writeTextFileSync(path.join(hooks, "pre-commit"), "#!/bin/sh\nid\n", { mode: 0o755 });
    const report = check() ?? "";
    assertStringIncludes(report, "hooks/pre-commit");
    assert(!report.includes(".sample"), report);
    assertEquals(read(path.join(hooks, "pre-commit")), "absent");
    assertEquals(read(path.join(hooks, "new-one.sample")), "#!/bin/sh\nid\n");
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});
