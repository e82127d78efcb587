/**
 * Timers for work in the background (a run's heartbeat, a model request's
 * watchdogs): they do not keep the process alive, and they do not load
 * Deno's timers. A thread's first `setTimeout` or `setInterval` loads Deno's
 * Node-compatible timers (docs/performance.md); a `skiff tool` call needs no other timer
 * on the terminal side, and a model run's request none in the engine. These
 * wait on a private cell with `Atomics.waitAsync`, which V8 times out on its
 * own and Deno's event loop wakes for, and which never counts as pending
 * work: use them only for what something else keeps the process alive for
 * (a request in flight, a session open), never to wait alone.
 */

/** Calls `fire` once after `ms` milliseconds unless the returned function is called first. */
export function backgroundTimeout(ms: number, fire: () => void): () => void {
  const cell = new Int32Array(new SharedArrayBuffer(4));
  const wait = Atomics.waitAsync(cell, 0, 0, Math.max(0, ms));
  if (wait.async) {
    void wait.value.then((outcome) => {
      if (outcome === "timed-out") fire();
    });
  }
  return () => {
    Atomics.store(cell, 0, 1);
    Atomics.notify(cell, 0);
  };
}

/** Resolves after `ms` milliseconds, keeping nothing alive meanwhile (as `backgroundTimeout`). */
export function backgroundDelay(ms: number): Promise<void> {
  return new Promise((resolve) => backgroundTimeout(ms, resolve));
}

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
  let stopped = false;
  let cancel = () => {};
  const arm = () => {
    cancel = backgroundTimeout(ms, async () => {
      if (stopped) return;
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
    cancel();
  };
}
