/** Waiting for work up to a deadline, for the language-server client's bounded waits. */

/**
 * What `work` gave by `deadline` (a `performance.now()` time), or undefined
 * when it had not, or `signal` was aborted first; its failure is thrown.
 */
export async function untilDeadline<T>(
  work: Promise<T>,
  deadline: number,
  signal?: AbortSignal,
): Promise<T | undefined> {
  if (signal?.aborted) return undefined;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let aborted: (() => void) | undefined;
  const late = new Promise<undefined>((resolve) => {
    timer = setTimeout(() => resolve(undefined), Math.max(0, deadline - performance.now()));
    aborted = () => resolve(undefined);
    signal?.addEventListener("abort", aborted, { once: true });
  });
  try {
    return await Promise.race([work, late]);
  } finally {
    clearTimeout(timer);
    signal?.removeEventListener("abort", aborted!);
  }
}
