/**
 * The engine's collection runs a moment after the loop asks, while the
 * model request is out (lib/collect.ts, `ENGINE_COLLECTION_DELAY_MS`):
 * collected between two requests it threw away far more optimised code
 * (docs/performance.md, "Per turn and memory"). Here the deferral with a
 * fake heap, and the engine's own collector with a stand-in `gc`.
 */
import { assert, assertEquals } from "../support/assert.ts";
import {
  collectIfGrown,
  ENGINE_COLLECTION_DELAY_MS,
  HeapGrowthCollector,
} from "../../src/lib/collect.ts";

const MB = 1024 * 1024;

Deno.test("a deferred collection runs when the deferral runs it, and none other is decided on meanwhile", () => {
  const heap = { used: 10 * MB, collected: 0 };
  const waiting: (() => void)[] = [];
  const collector = new HeapGrowthCollector({
    used: () => heap.used,
    collect: () => (heap.collected++, heap.used = 11 * MB, true),
    defer: (run) => void waiting.push(run),
  });
  assertEquals(collector.collectIfGrown(), false, "the first reading is the baseline");
  heap.used = 15 * MB;
  assertEquals(collector.collectIfGrown(), true, "decided on");
  assertEquals([heap.collected, collector.collections, waiting.length], [0, 0, 1]);
  heap.used = 25 * MB;
  assertEquals(collector.collectIfGrown(), false, "one is already on its way");
  assertEquals(waiting.length, 1);
  waiting.shift()!();
  assertEquals([heap.collected, collector.collections], [1, 1]);
  heap.used = 14.9 * MB;
  assertEquals(collector.collectIfGrown(), false, "counted from the 11 MB the collection left");
  heap.used = 15 * MB;
  assertEquals(collector.collectIfGrown(), true);
  assertEquals(waiting.length, 1);
});

Deno.test("a deferred collection that finds no gc stops the collector asking", () => {
  let readings = 0;
  const waiting: (() => void)[] = [];
  const collector = new HeapGrowthCollector({
    used: () => (readings++, 10 * MB + readings * 5 * MB),
    collect: () => false,
    defer: (run) => void waiting.push(run),
  });
  collector.collectIfGrown();
  assertEquals(collector.collectIfGrown(), true);
  waiting.shift()!();
  assertEquals(collector.collectIfGrown(), false);
  assertEquals([readings, waiting.length, collector.collections], [2, 0, 0]);
});

Deno.test("the engine's collector collects ENGINE_COLLECTION_DELAY_MS after the loop asks, not at once", async () => {
  const scope = globalThis as { gc?: () => void };
  assertEquals(typeof scope.gc, "undefined", "tests run without --expose-gc");
  let collected = 0;
  scope.gc = () => void collected++;
  try {
    collectIfGrown();
    // More than a quarter of this isolate's heap, held: the growth is certain.
    const hold = new Uint8Array(64 * MB).fill(1);
    assertEquals(collectIfGrown(), true, "grown by 64 MB: a collection is decided on");
    assertEquals(collected, 0, "not in the loop's own step");
    assertEquals(collectIfGrown(), false, "while it waits, no other");
    await new Promise((resolve) => setTimeout(resolve, ENGINE_COLLECTION_DELAY_MS + 40));
    assertEquals(collected, 1);
    assert(hold.length === 64 * MB);
  } finally {
    delete scope.gc;
  }
});
