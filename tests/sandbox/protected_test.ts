import * as path from "node:path";
import { assertEquals } from "../support/assert.ts";
import { isWriteProtected } from "../../src/sandbox/protected.ts";

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
