/**
 * One endpoint's pace, shared by every session a batch runs at once. Each
 * task's engine runs in its own Worker with its own provider, so the state
 * lives in a SharedArrayBuffer the batch hands to each of them: a 429 (or a
 * Retry-After) seen by one task pushes back the next request of every task,
 * and a run of connection failures or 5xx answers marks the endpoint as down,
 * so the batch stops starting tasks instead of failing them one by one.
 */

/** Slots of the shared state (BigInt64Array indices). */
const NOT_BEFORE = 0; // epoch ms: no request starts before this
const FAILURES_IN_A_ROW = 1; // connection errors / 5xx since the last answer
const SLOWDOWNS = 2; // how many times a rate limit pushed everyone back
const SLOTS = 3;

/** Failures in a row (across all tasks) after which the endpoint counts as down. @default 6 */
export const DOWN_AFTER_FAILURES = 6;

/** What one failed attempt tells the limiter (a subset of retry_policy's AttemptFailure). */
export interface LimiterFailure {
  status?: number;
  connection: boolean;
  retryAfterMs?: number;
}

export class RateLimiter {
  readonly buffer: SharedArrayBuffer;
  readonly #state: BigInt64Array;

  /** A new limiter, or a view of one another thread made (`new RateLimiter(buffer)`). */
  constructor(buffer?: SharedArrayBuffer, private readonly now: () => number = Date.now) {
    this.buffer = buffer ?? new SharedArrayBuffer(SLOTS * 8);
    this.#state = new BigInt64Array(this.buffer);
  }

  /** Milliseconds the next request must still wait (0: go). */
  waitMs(): number {
    return Math.max(0, Number(Atomics.load(this.#state, NOT_BEFORE)) - this.now());
  }

  /** Wait until the shared pace allows a request; rejects when `signal` aborts. */
  async wait(
    sleep: (ms: number, signal?: AbortSignal) => Promise<void>,
    signal?: AbortSignal,
  ): Promise<void> {
    // Another task may push the time further while this one sleeps: look again.
    for (let ms = this.waitMs(); ms > 0; ms = this.waitMs()) await sleep(ms, signal);
  }

  /**
   * Record a failed attempt that will be retried after `delayMs`. A rate
   * limit (429, or any Retry-After) holds every task for that long.
   */
  failed(failure: LimiterFailure, delayMs: number): void {
    if (failure.status === 429 || failure.retryAfterMs !== undefined) {
      const until = BigInt(Math.round(this.now() + delayMs));
      for (;;) {
        const current = Atomics.load(this.#state, NOT_BEFORE);
        if (current >= until) break;
        if (Atomics.compareExchange(this.#state, NOT_BEFORE, current, until) === current) {
          Atomics.add(this.#state, SLOWDOWNS, 1n);
          break;
        }
      }
    }
    if (failure.connection || (failure.status !== undefined && failure.status >= 500)) {
      Atomics.add(this.#state, FAILURES_IN_A_ROW, 1n);
    }
  }

  /** An answer came: the endpoint is up. */
  succeeded(): void {
    Atomics.store(this.#state, FAILURES_IN_A_ROW, 0n);
  }

  /** Connection errors or 5xx in a row, across every task. */
  failuresInARow(): number {
    return Number(Atomics.load(this.#state, FAILURES_IN_A_ROW));
  }

  /** Times a rate limit held every task back. */
  slowdowns(): number {
    return Number(Atomics.load(this.#state, SLOWDOWNS));
  }

  /** Too many failures in a row: start nothing new against this endpoint. */
  down(threshold = DOWN_AFTER_FAILURES): boolean {
    return this.failuresInARow() >= threshold;
  }
}
