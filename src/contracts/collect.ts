/**
 * A full garbage collection at a moment nobody waits on (the chat, after a
 * turn, while the person reads the answer). V8 collects lazily, so without it
 * a long chat's memory climbs with garbage no one holds (docs/performance.md,
 * "Per turn and memory"). `gc` exists when the runtime is started with
 * `--v8-flags=--expose-gc` (deno.json's tasks and the compiled binary are);
 * without it this does nothing.
 */
export function collectGarbage(
  scope: { gc?: () => void } = globalThis as { gc?: () => void },
): boolean {
  if (typeof scope.gc !== "function") return false;
  scope.gc();
  return true;
}
