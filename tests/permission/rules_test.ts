import { assertEquals } from "../support/assert.ts";
import {
  flattenLayer,
  mergeRule,
  type PermissionConfig,
  stricter,
  wildcardMatch,
} from "../../src/permission/rules.ts";

Deno.test("wildcardMatch: the table of patterns users write", () => {
  const table: [string, string, boolean][] = [
    ["*", "anything at all", true],
    ["git *", "git", true],
    ["git *", "git status", true],
    ["git *", "gitk", false],
    ["git status", "git status", true],
    ["git status", "git status --short", false],
    ["git diff *", "git diff HEAD~1", true],
    ["git diff *", "git", false],
    ["rm *", "rm -rf /", true],
    ["*.env", ".env", true],
    ["*.env", "config/prod.env", true],
    ["*.env", "env.ts", false],
    ["id_?sa", "id_rsa", true],
    ["id_?sa", "id_ecdsa", false],
    ["src/*.ts", "src/a/b.ts", true],
    ["a.b", "axb", false],
    ["(x)", "(x)", true],
    ["[ab]", "a", false],
  ];
  for (const [pattern, text, expected] of table) {
    assertEquals(wildcardMatch(pattern, text), expected, `${pattern} vs ${text}`);
  }
});

Deno.test("flattenLayer keeps written order; a single action is a * rule", () => {
  const rules = flattenLayer({
    name: "project",
    permission: { bash: { "*": "ask", "git status": "allow" }, webfetch: "deny" },
  });
  assertEquals(rules.map((r) => `${r.key}:${r.pattern}:${r.action}`), [
    "bash:*:ask",
    "bash:git status:allow",
    "webfetch:*:deny",
  ]);
});

Deno.test("mergeRule turns a single action into a map and moves a re-added pattern last", () => {
  const config: PermissionConfig = { bash: "ask" };
  mergeRule(config, "bash", "git log *", "allow");
  assertEquals(config, { bash: { "*": "ask", "git log *": "allow" } });
  const map: PermissionConfig = { bash: { "a *": "allow", "b *": "allow" } };
  mergeRule(map, "bash", "a *", "deny");
  assertEquals(map, { bash: { "b *": "allow", "a *": "deny" } });
  assertEquals(Object.keys(map.bash), ["b *", "a *"]);
});

Deno.test("stricter orders deny > ask > allow", () => {
  assertEquals(stricter("allow", "ask"), "ask");
  assertEquals(stricter("deny", "ask"), "deny");
  assertEquals(stricter("allow", "allow"), "allow");
});
