import { assertEquals } from "../../../support/assert.ts";
import { bestMatches, expandMentions, mentionAt } from "../../../../src/ui/chat/input/mentions.ts";

Deno.test("fuzzy completion ranks the file-name match first", () => {
  const files = [
    "docs/readme.md",
    "src/engine/engine.ts",
    "src/cli/chat/chat.ts",
    "tests/cli/chat/chat_test.ts",
  ];
  assertEquals(bestMatches("chat", files)[0], "src/cli/chat/chat.ts");
  assertEquals(bestMatches("eng", files), ["src/engine/engine.ts"]);
  assertEquals(mentionAt("look at @src/ch", 15), { start: 8, query: "src/ch" });
});

Deno.test("a mentioned file is inlined; one the read policy refuses is named, not inlined", async () => {
  const result = await expandMentions(
    "compare @a.ts with @secret.env and mail me@example.com",
    (path) => path === "a.ts" || path === "secret.env" ? "file" : "missing",
    (path) =>
      Promise.resolve(
        path === "a.ts"
          ? { ok: true as const, text: "export {}" }
          : { ok: false as const, why: "Permission denied" },
      ),
  );
  assertEquals(result.attached, ["a.ts"]);
  assertEquals(result.refused, [{ path: "secret.env", why: "Permission denied" }]);
  assertEquals(result.prompt.includes('<file path="a.ts">\nexport {}\n</file>'), true);
  assertEquals(result.prompt.includes('<file path="secret.env">'), false);
});

Deno.test("a folder and a missing file name get a note; a handle does not", async () => {
  const result = await expandMentions(
    "look at @src and @missing.js, ask @alice",
    (path) => path === "src" ? "folder" : "missing",
    () => Promise.reject(new Error("nothing is read")),
  );
  assertEquals(result.unattached.map((entry) => entry.path), ["src", "missing.js"]);
  assertEquals(result.unattached[1].why, "no such file in the workspace");
  assertEquals(result.prompt, "look at @src and @missing.js, ask @alice");
});
