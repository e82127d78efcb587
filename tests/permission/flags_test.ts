import { assertEquals, assertThrows } from "../support/assert.ts";
import { flagsLayer, parsePermissionFlag } from "../../src/permission/flags.ts";

Deno.test("parsePermissionFlag reads key(pattern) and a bare key", () => {
  assertEquals(parsePermissionFlag("bash(npm test *)"), { key: "bash", pattern: "npm test *" });
  assertEquals(parsePermissionFlag("webfetch"), { key: "webfetch", pattern: "*" });
  assertEquals(parsePermissionFlag("bash(echo $(date))"), { key: "bash", pattern: "echo $(date)" });
  assertEquals(parsePermissionFlag("github_*"), { key: "github_*", pattern: "*" });
});

Deno.test("parsePermissionFlag refuses malformed rules with a way forward", () => {
  assertThrows(() => parsePermissionFlag("bash(npm test"), Error, "Quote it");
  assertThrows(() => parsePermissionFlag("bash()"), Error, "empty");
  assertThrows(() => parsePermissionFlag("my tool"), Error, "expected a tool key");
});

Deno.test("flagsLayer builds the flags layer from --allow/--ask/--deny", () => {
  const layer = flagsLayer({ allow: ["bash(npm test *)", "read"], deny: ["webfetch"] });
  assertEquals(layer, {
    name: "flags",
    permission: { bash: { "npm test *": "allow" }, read: "allow", webfetch: "deny" },
  });
});

Deno.test("parsePermissionFlag reads Claude Code's spelling as its settings files are read", () => {
  assertEquals(parsePermissionFlag("Bash(git status:*)"), { key: "bash", pattern: "git status *" });
  assertEquals(parsePermissionFlag("WebFetch(domain:docs.example)"), {
    key: "webfetch",
    pattern: "docs.example",
  });
  assertEquals(parsePermissionFlag("mcp__github__get_issue"), {
    key: "github_get_issue",
    pattern: "*",
  });
  // An allow is never read wider than written; the same rule may deny.
  assertThrows(() => parsePermissionFlag("Bash(ls ?)"), Error, "any one character");
  assertEquals(parsePermissionFlag("Bash(ls ?)", "deny"), { key: "bash", pattern: "ls ?" });
  assertThrows(() => parsePermissionFlag("WebSearch"), Error, "no WebSearch tool");
  const layer = flagsLayer({ allow: ["Bash(npm test:*)"], deny: ["Read(./.env)"] });
  assertEquals(layer.permission, { bash: { "npm test *": "allow" }, read: { ".env": "deny" } });
});
