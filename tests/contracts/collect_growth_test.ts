/**
 * The engine collects its garbage when the heap has grown by a share of what
 * the last collection left (lib/collect.ts): the peak memory of a long
 * `skiff run` (scripts/bench_turns.ts) without a collection every turn.
 * Here with a fake heap reading and a fake collector.
 */
import { assertEquals } from "../support/assert.ts";
import { HeapGrowthCollector } from "../../src/lib/collect.ts";

const MB = 1024 * 1024;

/** A heap whose reading a test sets, and a collector that takes it down to `after`. */
function fakeHeap(start: number) {
  const heap = { used: start, after: start, collected: 0, available: true };
  const collector = new HeapGrowthCollector({
    used: () => heap.used,
    collect: () => {
      if (!heap.available) return false;
      heap.collected++;
      heap.used = heap.after;
      return true;
    },
  });
  return { heap, collector };
}

Deno.test("no collection until the heap has grown by 4 MB over what the first reading saw", () => {
  const { heap, collector } = fakeHeap(10 * MB);
  assertEquals(collector.collectIfGrown(), false);
  heap.used = 13.9 * MB;
  assertEquals(collector.collectIfGrown(), false);
  heap.used = 14 * MB;
  heap.after = 11 * MB;
  assertEquals(collector.collectIfGrown(), true);
  assertEquals(heap.collected, 1);
  assertEquals(collector.collections, 1);
});

Deno.test("after a collection the growth is counted from what it left", () => {
  const { heap, collector } = fakeHeap(10 * MB);
  collector.collectIfGrown();
  heap.used = 15 * MB;
  heap.after = 12 * MB;
  assertEquals(collector.collectIfGrown(), true);
  heap.used = 15.9 * MB;
  assertEquals(collector.collectIfGrown(), false, "12 MB left: 4 MB more are needed");
  heap.used = 16 * MB;
  assertEquals(collector.collectIfGrown(), true);
  assertEquals(heap.collected, 2);
});

Deno.test("a lower reading (V8 collected on its own) lowers the baseline", () => {
  const { heap, collector } = fakeHeap(20 * MB);
  collector.collectIfGrown();
  heap.used = 14 * MB;
  assertEquals(collector.collectIfGrown(), false);
  heap.used = 18 * MB;
  assertEquals(collector.collectIfGrown(), true, "4 MB over the 14 MB V8 left");
});

Deno.test("a large heap needs a quarter of itself before the next collection", () => {
  const { heap, collector } = fakeHeap(200 * MB);
  collector.collectIfGrown();
  heap.used = 240 * MB;
  assertEquals(collector.collectIfGrown(), false, "40 MB is less than 50");
  heap.used = 250 * MB;
  heap.after = 205 * MB;
  assertEquals(collector.collectIfGrown(), true);
  assertEquals(heap.collected, 1);
});

Deno.test("without gc (no --expose-gc) it stops reading the heap after the first attempt", () => {
  let readings = 0;
  let attempts = 0;
  const collector = new HeapGrowthCollector({
    used: () => (readings++, 10 * MB + readings * 5 * MB),
    collect: () => (attempts++, false),
  });
  assertEquals(collector.collectIfGrown(), false);
  assertEquals(collector.collectIfGrown(), false);
  assertEquals([readings, attempts], [2, 1]);
  assertEquals(collector.collectIfGrown(), false);
  assertEquals([readings, attempts, collector.collections], [2, 1, 0]);
});

Deno.test("the default reading is this isolate's heap and ArrayBuffers", () => {
  const usage = Deno.memoryUsage();
  let collected = false;
  const collector = new HeapGrowthCollector({
    collect: () => (collected = true),
    share: 0,
  });
  collector.collectIfGrown();
  const hold = new Uint8Array(8 * MB).fill(1);
  collector.collectIfGrown();
  assertEquals(collected, true, `heapUsed ${usage.heapUsed}, external ${usage.external}`);
  assertEquals(hold.length, 8 * MB);
});
