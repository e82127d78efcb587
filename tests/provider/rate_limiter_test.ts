/**
 * The batch's shared rate limiter: a rate limit seen by one holder holds every
 * holder (views of one SharedArrayBuffer, as each task's Worker has), a run
 * of failures marks the endpoint down, and an answer resets that run.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { DOWN_AFTER_FAILURES, RateLimiter } from "../../src/provider/rate_limiter.ts";
import { runPool } from "../../src/cli/batch/scheduler.ts";

function clock(start = 1_000_000) {
  const state = { now: start };
  return { state, now: () => state.now };
}

Deno.test("rate limiter: a 429 with Retry-After seen by one holder holds every holder", async () => {
  const time = clock();
  const first = new RateLimiter(undefined, time.now);
  const second = new RateLimiter(first.buffer, time.now);
  const third = new RateLimiter(first.buffer, time.now);
  assertEquals([first.waitMs(), second.waitMs(), third.waitMs()], [0, 0, 0]);

  first.failed({ status: 429, connection: false, retryAfterMs: 2000 }, 2000);
  assertEquals([first.waitMs(), second.waitMs(), third.waitMs()], [2000, 2000, 2000]);
  assertEquals(third.slowdowns(), 1);
  // A rate limit is not the endpoint failing.
  assertEquals(second.failuresInARow(), 0);

  // wait() sleeps until the shared time has passed, looking again after each sleep.
  const slept: number[] = [];
  await second.wait((ms) => {
    slept.push(ms);
    time.state.now += ms;
    return Promise.resolve();
  });
  assertEquals(slept, [2000]);
  assertEquals(third.waitMs(), 0);
});

Deno.test("rate limiter: a shorter hold never shortens a longer one another holder set", () => {
  const time = clock();
  const first = new RateLimiter(undefined, time.now);
  const second = new RateLimiter(first.buffer, time.now);
  first.failed({ status: 429, connection: false }, 5000);
  second.failed({ status: 429, connection: false, retryAfterMs: 1000 }, 1000);
  assertEquals(first.waitMs(), 5000);
  assertEquals(first.slowdowns(), 1);
});

Deno.test("rate limiter: a wait pushed further while sleeping is waited out too", async () => {
  const time = clock();
  const limiter = new RateLimiter(undefined, time.now);
  const other = new RateLimiter(limiter.buffer, time.now);
  limiter.failed({ status: 429, connection: false }, 1000);
  const slept: number[] = [];
  await limiter.wait((ms) => {
    slept.push(ms);
    time.state.now += ms;
    // Another task hits the limit again while this one sleeps.
    if (slept.length === 1) other.failed({ status: 429, connection: false }, 3000);
    return Promise.resolve();
  });
  assertEquals(slept, [1000, 3000]);
});

Deno.test("rate limiter: failures in a row across holders stop starts; a success resets", () => {
  const first = new RateLimiter();
  const second = new RateLimiter(first.buffer);
  for (let i = 0; i < DOWN_AFTER_FAILURES - 1; i++) {
    (i % 2 ? first : second).failed(
      i % 3 ? { status: 503, connection: false } : { connection: true },
      10,
    );
  }
  assertEquals(first.failuresInARow(), DOWN_AFTER_FAILURES - 1);
  assert(!first.down() && !second.down());
  second.failed({ status: 500, connection: false }, 10);
  assert(first.down() && second.down());

  first.succeeded();
  assertEquals(second.failuresInARow(), 0);
  assert(!second.down());
  // A 4xx other than 429 is the request's fault, not the endpoint's.
  second.failed({ status: 400, connection: false }, 10);
  assertEquals(first.failuresInARow(), 0);
});

Deno.test("rate limiter: a batch pool starts no task once the endpoint is down", async () => {
  const limiter = new RateLimiter();
  const ran: number[] = [];
  const pool = await runPool([1, 2, 3, 4, 5], {
    jobs: 1,
    stopReason: () => limiter.down() ? "endpoint down" : undefined,
    run: (task) => {
      ran.push(task);
      // Each task's requests fail three times in a row: two tasks make the endpoint down.
      for (let i = 0; i < 3; i++) limiter.failed({ connection: true }, 10);
      return Promise.resolve();
    },
  });
  assertEquals(ran, [1, 2]);
  assertEquals(pool, { stoppedBecause: "endpoint down", started: 2 });
});
