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
