import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { evaluate } from "../../../src/permission/evaluate.ts";
import { gitCodeExecutionReason } from "../../../src/permission/shell/git_code_rules.ts";
import { buildLayers } from "../../../src/permission/layers.ts";
import { protectedCommandReason } from "../../../src/permission/shell/protected_commands.ts";
import { ensureShellParser } from "../../../src/permission/shell/shell_parser.ts";

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

Deno.test("git forms that run code need a rule naming them, not just `git *`", async () => {
  await ensureShellParser();
  const workspace = Deno.realPathSync(Deno.makeTempDirSync({ prefix: "skiff-git-rules-" }));
  const decide = (command: string, rules: Record<string, "allow" | "deny">) =>
    evaluate(
      { key: "bash", patterns: [command], commands: [command] },
      { layers: buildLayers({ project: { bash: rules } }), workspace },
    );
  const gitAll = { "git *": "allow" } as const;
  const table: [string, Record<string, "allow" | "deny">, string][] = [
    ["git status", gitAll, "allow"],
    ["git -C sub status", gitAll, "allow"],
    ["git -c color.ui=never log", gitAll, "ask"],
    ["git -c alias.st='!touch x' st", gitAll, "ask"],
    ["git --config-env=core.pager=EVIL log", gitAll, "ask"],
    ["git --exec-path=. status", gitAll, "ask"],
    ["git --git-dir=planted status", gitAll, "ask"],
    ["git st", gitAll, "ask"],
    ["git grep -O'touch x' foo", gitAll, "ask"],
    ["git rebase -x 'touch x' main", gitAll, "ask"],
    ["git fetch --upload-pack='touch x' .", gitAll, "ask"],
    ["git diff --ext-diff", gitAll, "ask"],
    ["git -c color.ui=never log", { "git *": "allow", "git -c *": "allow" }, "allow"],
    ["git st", { "git *": "allow", "git st *": "allow" }, "allow"],
    ["git statusx", { "git status*": "allow" }, "ask"],
    // `*` approves every program, and so git's options too.
    ["git -c color.ui=never log", { "*": "allow" }, "allow"],
    ["/usr/bin/git -c x=y status", gitAll, "ask"],
  ];
  try {
    for (const [command, rules, expected] of table) {
      const decision = decide(command, rules);
      assertEquals(decision.action, expected, `${command} under ${JSON.stringify(rules)}`);
    }
    assertStringIncludes(decide("git -c a=b log", gitAll).reason, "git -c *");
  } finally {
    Deno.removeSync(workspace, { recursive: true });
  }
});

Deno.test("gitCodeExecutionReason only speaks for rules about git", () => {
  assertEquals(gitCodeExecutionReason("git -c a=b log", "*"), null);
  assertEquals(gitCodeExecutionReason("git -c a=b log", "npm *"), null);
  assertEquals(gitCodeExecutionReason("git log -c", "git log *"), null);
  assert(gitCodeExecutionReason("git -c a=b log", "git*") !== null);
});
