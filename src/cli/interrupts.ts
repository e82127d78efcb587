/**
 * What a Ctrl-C (or SIGTERM) means to a run: the first one stops it the
 * orderly way (the session is stored and ends "interrupted"), a later one
 * exits at once. Under `deno task skiff` one key press arrives twice — the
 * terminal signals the whole process group and the task runner forwards its
 * own copy — so signals that come within a short window of the one before
 * count as one press.
 */

/** Signals closer together than this are one press. @default 300 */
export const SAME_PRESS_MS = 300;

export interface InterruptOptions {
  /** The first press: stop the run the orderly way. */
  stop(): void;
  /** A later, separate press: give up waiting and exit now. */
  forceExit(): void;
  /** @default SAME_PRESS_MS */
  samePressMs?: number;
  /** @default Date.now */
  clock?: () => number;
}

/** A handler for SIGINT/SIGTERM listeners; also called for a Ctrl-C at a prompt. */
export function interruptHandler(options: InterruptOptions): () => void {
  const clock = options.clock ?? Date.now;
  const window = options.samePressMs ?? SAME_PRESS_MS;
  let last: number | undefined;
  return () => {
    const now = clock();
    if (last === undefined) {
      last = now;
      options.stop();
      return;
    }
    // A copy of the press already handled (the task runner's), not a new press.
    if (now - last < window) return;
    last = now;
    options.forceExit();
  };
}
