/**
 * `presenceOf` (src/sandbox/dir_entries.ts): the protected-path checks skip
 * the lstat of a path only when a listing of its folder proves it missing;
 * every other answer leaves the decision to the filesystem, as before.
 */
import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { type Listings, presenceOf } from "../../src/sandbox/dir_entries.ts";
import { CommandGuard } from "../../src/sandbox/guard/command_guard.ts";

function folder(): { dir: string; cleanup(): void } {
  const dir = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-presence-" }));
  return { dir, cleanup: () => Deno.removeSync(dir, { recursive: true }) };
}

Deno.test("presenceOf: listed, absent, and unknown where a listing cannot prove absence", () => {
  const { dir, cleanup } = folder();
  try {
    Deno.writeTextFileSync(path.join(dir, "skiff.json"), "{}");
    Deno.mkdirSync(path.join(dir, ".Claude"));
    assertEquals(presenceOf(path.join(dir, "skiff.json")), "listed");
    assertEquals(presenceOf(path.join(dir, ".mcp.json")), "absent");
    // Differs in case alone: a case-insensitive filesystem would find it, so lstat decides.
    assertEquals(presenceOf(path.join(dir, ".claude")), "unknown");
    // Below a file: the folder cannot be listed.
    assertEquals(presenceOf(path.join(dir, "skiff.json", "x")), "unknown");
    // Below a missing folder, with no listing kept: that listing fails, unknown.
    assertEquals(presenceOf(path.join(dir, ".skiff", "agents")), "unknown");
    assertEquals(presenceOf("/"), "unknown");
  } finally {
    cleanup();
  }
});

Deno.test("presenceOf: a non-ASCII name in the folder makes every missing name unknown", () => {
  const { dir, cleanup } = folder();
  try {
    Deno.writeTextFileSync(path.join(dir, "SKİFF.json"), "{}");
    assertEquals(presenceOf(path.join(dir, "skiff.json")), "unknown");
    assertEquals(presenceOf(path.join(dir, "SKİFF.json")), "listed");
  } finally {
    cleanup();
  }
});

Deno.test("presenceOf: a non-ASCII name asked for is unknown (case folding beyond ASCII)", () => {
  const { dir, cleanup } = folder();
  try {
    Deno.writeTextFileSync(path.join(dir, "hooks-s"), "");
    // U+017F folds to 's' on a case-insensitive filesystem.
    assertEquals(presenceOf(path.join(dir, "hooks-\u017f")), "unknown");
    assertEquals(presenceOf(path.join(dir, "hooks-t")), "absent");
  } finally {
    cleanup();
  }
});

Deno.test("presenceOf: a kept listing answers for the folder below it, and listings are reused", () => {
  const { dir, cleanup } = folder();
  try {
    const listings: Listings = new Map();
    assertEquals(presenceOf(path.join(dir, "skiff.json"), listings), "absent");
    // `.claude` is not in the kept listing of `dir`: `.claude/agents` is absent without a read.
    assertEquals(presenceOf(path.join(dir, ".claude", "agents"), listings), "absent");
    assertEquals(listings.has(path.join(dir, ".claude")), false);
    // A listing is kept for the caller's checks in a row: a file made since is not seen…
    Deno.writeTextFileSync(path.join(dir, "skiff.json"), "{}");
    assertEquals(presenceOf(path.join(dir, "skiff.json"), listings), "absent");
    // …and a fresh search sees it.
    assertEquals(presenceOf(path.join(dir, "skiff.json")), "listed");
  } finally {
    cleanup();
  }
});

Deno.test("command guard: entries missing before a command and created by it are still reverted", () => {
  const { dir, cleanup } = folder();
  try {
    const ws = path.join(dir, "ws");
    Deno.mkdirSync(ws);
    new Deno.Command("git", { args: ["init", "-q", ws], stdout: "null", stderr: "null" })
      .outputSync();
    const guard = new CommandGuard({ roots: [ws] });
    const after = guard.before();
    // What the listings now answer for: config.worktree, a linked worktree's
    // folder with its commondir, a submodule's hooks, skiff.json.
    const git = path.join(ws, ".git");
    Deno.writeTextFileSync(path.join(git, "config.worktree"), "[core]\n\thooksPath = /x\n");
    Deno.mkdirSync(path.join(git, "worktrees", "wt"), { recursive: true });
    Deno.writeTextFileSync(path.join(git, "worktrees", "wt", "commondir"), "/elsewhere\n");
    Deno.mkdirSync(path.join(git, "modules", "sub", "hooks"), { recursive: true });
    Deno.writeTextFileSync(path.join(git, "modules", "sub", "HEAD"), "ref: refs/heads/main\n");
    Deno.writeTextFileSync(path.join(git, "modules", "sub", "hooks", "pre-commit"), "#!/bin/sh\n");
    Deno.writeTextFileSync(path.join(ws, "skiff.json"), "{}");
    const report = after() ?? "";
    for (
      const gone of [
        ".git/config.worktree",
        ".git/worktrees/wt/commondir",
        ".git/modules/sub/hooks/pre-commit",
        "skiff.json",
      ]
    ) {
      assertEquals(report.includes(gone), true, `${gone} not reported:\n${report}`);
      let exists = true;
      try {
        Deno.lstatSync(path.join(ws, gone));
      } catch {
        exists = false;
      }
      assertEquals(exists, false, `${gone} was not removed`);
    }
  } finally {
    cleanup();
  }
});
