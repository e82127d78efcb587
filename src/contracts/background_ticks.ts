/**
 * A repeating timer for work in the background (a run's heartbeat): it does
 * not keep the process alive, and it does not load Deno's timers. A
 * process's first `setTimeout` or `setInterval` loads Deno's Node-compatible
 * timers, 9–16 ms on the thread that calls it; a `skiff tool` call needs no
 * other timer on the terminal side. This waits on a private cell with
 * `Atomics.waitAsync`, which V8 times out on its own and Deno's event loop
 * wakes for, and which never counts as pending work.
 */

/**
 * Calls `tick` every `ms` milliseconds until the returned function is
 * called, while the process lives for other reasons. A tick that throws (or
 * whose promise rejects) is handed to `onError`, and the ticks go on; the
 * next wait starts once a tick's promise has settled.
 */
export function backgroundTicks(
  ms: number,
  tick: () => void | Promise<void>,
  onError: (error: unknown) => void = () => {},
): () => void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  let stopped = false;
  const arm = () => {
    const wait = Atomics.waitAsync(cell, 0, 0, ms);
    // Only "not-equal" answers at once, and the cell is never changed but to stop.
    if (!wait.async) return;
    void wait.value.then(async (outcome) => {
      if (stopped || outcome !== "timed-out") return;
      try {
        await tick();
      } catch (error) {
        onError(error);
      }
      if (!stopped) arm();
    });
  };
  arm();
  return () => {
    if (stopped) return;
    stopped = true;
    // Ends the pending wait now rather than at its timeout.
    Atomics.store(cell, 0, 1);
    Atomics.notify(cell, 0);
  };
}
