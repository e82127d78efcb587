import { assertEquals } from "../support/assert.ts";
import { protectedCommandReason } from "../../src/policy/protected_commands.ts";

Deno.test("protectedCommandReason: commands that could plant code git or skiff runs later", () => {
  const table: [string, boolean][] = [
    ["echo x > .git/hooks/pre-commit", true],
    ["echo ../evil > .git/commondir", true],
    ["mv .git .git-old", true],
    ["cat ./.git/config", true],
    ["cp evil.json skiff.json", true],
    ["mkdir -p .skiff/agents", true],
    ["git init", true],
    ["git config core.fsmonitor 'sh evil'", true],
    ["git -C sub config core.hooksPath x", true],
    ["/usr/bin/git submodule add ../x", true],
    ["git worktree add ../wt", true],
    ["git status", false],
    ["git -c color.ui=never log", false],
    ["cat .gitignore", false],
    ["ls .github/workflows", false],
    ["deno task skiff run", false],
    ["npm test", false],
  ];
  for (const [command, expected] of table) {
    assertEquals(protectedCommandReason(command) !== null, expected, command);
  }
});
