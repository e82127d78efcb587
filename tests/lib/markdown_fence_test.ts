/** The one fence maker: longer than any run of backticks inside, at least three. */
import { assertEquals } from "../support/assert.ts";
import { fencedBlock, fenceFor } from "../../src/lib/markdown_fence.ts";

Deno.test("a fence is longer than every run of backticks in the text, and at least three", () => {
  assertEquals(fenceFor("plain"), "```");
  assertEquals(fenceFor("a `b` c"), "```");
  assertEquals(fenceFor("```\n## User"), "````");
  assertEquals(fenceFor("x ````````` y ``"), "``````````");
  assertEquals(fencedBlock("```", "json"), "````json\n```\n````");
});
