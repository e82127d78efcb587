import { assertEquals } from "../support/assert.ts";
import { DoomLoopTracker } from "../../src/permission/doom_loop.ts";

Deno.test("DoomLoopTracker: three identical calls in a row, key order ignored", () => {
  const tracker = new DoomLoopTracker();
  assertEquals(tracker.record("edit", { a: 1, b: 2 }), false);
  assertEquals(tracker.record("edit", { b: 2, a: 1 }), false);
  assertEquals(tracker.record("edit", { a: 1, b: 2 }), true);
  assertEquals(tracker.record("edit", { a: 1, b: 2 }), true);
  assertEquals(tracker.record("read", { a: 1, b: 2 }), false);
  assertEquals(tracker.record("edit", { a: 1, b: 2 }), false);
});
