import * as path from "node:path";
import { assert, assertEquals } from "../support/assert.ts";
import { hooksPathOf, readGitConfigValue } from "../../src/sandbox/git_dirs.ts";
import { isWithin } from "../../src/sandbox/paths.ts";
import {
  gitProtection,
  isToolWriteProtected,
  isWriteProtected,
} from "../../src/sandbox/protected.ts";

Deno.test("isWriteProtected: git hooks, git config and skiff config, through symlinks too", () => {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-protected-" }));
  Deno.mkdirSync(path.join(ws, ".git", "hooks"), { recursive: true });
  const table: [string, boolean][] = [
    [".git/hooks/pre-commit", true],
    [".git/hooks", true],
    [".git/config", true],
    ["skiff.json", true],
    [".skiff/config.json", true],
    [".skiff/agents/x.md", true],
    [".git/HEAD", false],
    ["src/skiff.json.ts", false],
    ["docs/.skiff-notes", false],
    [path.join(ws, ".git", "hooks", "post-checkout"), true],
  ];
  for (const [target, expected] of table) {
    assertEquals(isWriteProtected(ws, target), expected, target);
  }
  Deno.symlinkSync(path.join(ws, ".git", "hooks"), path.join(ws, "innocent"));
  assertEquals(isWriteProtected(ws, "innocent/pre-push"), true);
  Deno.removeSync(ws, { recursive: true });
});

function git(args: string[], cwd: string): void {
  const result = new Deno.Command("git", { args, cwd, stdout: "null", stderr: "piped" })
    .outputSync();
  if (!result.success) throw new Error(new TextDecoder().decode(result.stderr));
}

Deno.test("gitProtection: every repository at any depth, submodules' and worktrees' folders, hooksPath", () => {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gitprot-" }));
  try {
    git(["init", "-q"], ws);
    git(["config", "core.hooksPath", "tools/hooks"], ws);
    git(["init", "-q", "deep/vendor/lib"], ws);
    Deno.mkdirSync(path.join(ws, ".git", "modules", "a"), { recursive: true });
    git(["init", "-q", "--separate-git-dir", path.join(ws, ".git/modules/a/b"), "sub"], ws);
    Deno.mkdirSync(path.join(ws, ".git", "worktrees", "wt"), { recursive: true });
    const found = gitProtection([ws]);
    assertEquals(found.complete, true);
    assertEquals(found.gitDirs.sort(), [
      path.join(ws, ".git"),
      path.join(ws, "deep/vendor/lib/.git"),
    ]);
    assertEquals(found.pointers, [path.join(ws, "sub", ".git")]);
    for (
      const protectedPath of [
        ".git/hooks",
        ".git/config",
        ".git/commondir",
        ".git/config.worktree",
        ".git/modules/a/b/hooks",
        ".git/modules/a/b/config",
        ".git/worktrees/wt/commondir",
        "deep/vendor/lib/.git/hooks",
        "tools/hooks",
      ]
    ) {
      assert(found.paths.includes(path.join(ws, protectedPath)), protectedPath);
    }
    // What git add and git commit write stays writable.
    for (const writable of [".git/index", ".git/objects", ".git/refs", ".git/HEAD", ".git/logs"]) {
      assert(!found.paths.some((target) => isWithin(target, path.join(ws, writable))), writable);
    }
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("gitProtection: a hooksPath that is the working tree protects the hook names, not the work", () => {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gitprot-" }));
  try {
    git(["init", "-q"], ws);
    git(["config", "core.hooksPath", "."], ws);
    const found = gitProtection([ws]);
    assert(found.paths.includes(path.join(ws, "pre-commit")));
    assert(!found.paths.includes(ws));
    assertEquals(isToolWriteProtected(ws, "pre-commit"), true);
    assertEquals(isToolWriteProtected(ws, "src/main.ts"), false);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});

Deno.test("readGitConfigValue: sections, quotes, comments and includes; no git is run", () => {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gitconf-" }));
  try {
    Deno.writeTextFileSync(
      path.join(dir, "extra"),
      '[core]\n\thooksPath = "from include" ; note\n',
    );
    Deno.writeTextFileSync(
      path.join(dir, "config"),
      '[core "sub"]\n\thooksPath = no\n[Core]\n\tHOOKSPATH = first\n[include]\n\tpath = extra\n',
    );
    assertEquals(readGitConfigValue(path.join(dir, "config"), "core", "hookspath"), "from include");
    assertEquals(hooksPathOf(dir, "/repo"), "/repo/from include");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});

Deno.test("isToolWriteProtected: the folder core.hooksPath names is refused to the file tools", () => {
  const ws = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-gitprot-" }));
  try {
    git(["init", "-q"], ws);
    git(["config", "core.hooksPath", ".githooks"], ws);
    assertEquals(isToolWriteProtected(ws, ".githooks/pre-commit"), true);
    git(["init", "-q", "nested"], ws);
    git(["config", "core.hooksPath", "../shared-hooks"], path.join(ws, "nested"));
    assertEquals(isToolWriteProtected(ws, "nested/x/../../shared-hooks/post-checkout"), true);
    assertEquals(isToolWriteProtected(ws, "githooks/pre-commit"), false);
  } finally {
    Deno.removeSync(ws, { recursive: true });
  }
});
