/** Backoff growth and Retry-After reading, without a server. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  backoffDelayMs,
  isRetryableStatus,
  retryAfterFromHeaders,
} from "../../src/provider/retry_policy.ts";

Deno.test("backoff doubles from 500 ms, stays capped, and jitters within ±25 %", () => {
  const middle = () => 0.5;
  assertEquals([1, 2, 3, 4, 5, 6].map((n) => backoffDelayMs(n, middle)), [
    500,
    1000,
    2000,
    4000,
    8000,
    8000,
  ]);
  assert(backoffDelayMs(3, () => 0) === 1500);
  assert(backoffDelayMs(3, () => 0.999) <= 2500);
});

Deno.test("Retry-After: seconds, HTTP date, milliseconds header, cap, garbage", () => {
  const now = Date.parse("2026-01-01T00:00:00Z");
  const read = (pairs: Record<string, string>) =>
    retryAfterFromHeaders(new Headers(pairs), now, 60_000);
  assertEquals(read({ "retry-after": "7" }), 7_000);
  assertEquals(read({ "retry-after": "Thu, 01 Jan 2026 00:00:20 GMT" }), 20_000);
  assertEquals(
    read({ "retry-after": "Wed, 31 Dec 2025 23:00:00 GMT" }),
    0,
    "a past date means now",
  );
  assertEquals(read({ "retry-after-ms": "250", "retry-after": "9" }), 250);
  assertEquals(read({ "retry-after": "3600" }), 60_000);
  assertEquals(read({ "retry-after": "soon" }), undefined);
  assertEquals(read({}), undefined);
});

Deno.test("which statuses are retried", () => {
  assertEquals([408, 409, 429, 500, 502, 503].map(isRetryableStatus), [
    true,
    true,
    true,
    true,
    true,
    true,
  ]);
  assertEquals([400, 401, 403, 404, 413, 422].map(isRetryableStatus), [
    false,
    false,
    false,
    false,
    false,
    false,
  ]);
});
