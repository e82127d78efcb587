/** Waiting for the process to be told to stop, for a command that serves until then. */

/** Resolves at the first SIGINT or SIGTERM; both listeners are removed then. */
export function untilStopped(): Promise<void> {
  return new Promise((resolve) => {
    const stop = () => {
      Deno.removeSignalListener("SIGINT", stop);
      Deno.removeSignalListener("SIGTERM", stop);
      resolve();
    };
    Deno.addSignalListener("SIGINT", stop);
    Deno.addSignalListener("SIGTERM", stop);
  });
}
