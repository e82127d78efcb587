import { assertEquals } from "../../support/assert.ts";
import {
  CORE_TOOLS,
  SMALL_WINDOW_TOKENS,
  toolsForWindow,
} from "../../../src/engine/context/small_window.ts";

const tools = ["bash", "read", "webfetch", "task", "edit", "mcp__tracker__search"].map((name) => ({
  name,
}));

Deno.test("a small window is offered the core tools, a large one every tool", () => {
  assertEquals(toolsForWindow(tools, 8_192).map((tool) => tool.name), ["bash", "read", "edit"]);
  assertEquals(toolsForWindow(tools, SMALL_WINDOW_TOKENS), tools);
  assertEquals(CORE_TOOLS.includes("webfetch"), false);
  // An agent allowed none of the core tools keeps its own rather than none.
  const own = [{ name: "webfetch" }];
  assertEquals(toolsForWindow(own, 8_192), own);
});
