/**
 * `--max-time` over the start of a run. The loop's deadline cuts a model
 * request or a command once the run is under way; before that, opening the
 * session can wait too (an MCP server that never answers its handshake, with
 * a connect timeout of minutes). The run's clock starts before the session
 * opens, and an open still pending at the deadline ends the run as a limit.
 */

/** The outcome of work raced against a deadline. */
export type BeforeDeadline<T> = { kind: "done"; value: T } | { kind: "time-up" };

/**
 * `work`'s value, or "time-up" when `deadline` (epoch ms) comes first. A
 * failure of `work` before the deadline is thrown; one after it is dropped
 * (the caller has moved on). No deadline: waits for `work`.
 */
export async function beforeDeadline<T>(
  work: Promise<T>,
  deadline: number | undefined,
  clock: () => number = Date.now,
): Promise<BeforeDeadline<T>> {
  if (deadline === undefined) return { kind: "done", value: await work };
  let timer: ReturnType<typeof setTimeout> | undefined;
  const timeUp = new Promise<{ kind: "time-up" }>((resolve) => {
    timer = setTimeout(() => resolve({ kind: "time-up" }), Math.max(0, deadline - clock()));
  });
  try {
    const outcome = await Promise.race([
      work.then((value) => ({ kind: "done" as const, value })),
      timeUp,
    ]);
    if (outcome.kind === "time-up") work.catch(() => {});
    return outcome;
  } finally {
    clearTimeout(timer);
  }
}

/**
 * Why `skiff run` ended when the deadline passed while its session was still
 * opening: the `error` event's message (the text renderer puts `skiff: ` before it).
 */
export function startCutMessage(maxSeconds: number): string {
  return `time limit reached (--max-time ${maxSeconds}) while the session was still ` +
    "starting (MCP servers connecting); nothing was sent to the model. Raise --max-time, " +
    "or lower connect_timeout_ms of the MCP server that does not answer (skiff mcp list shows them).";
}
