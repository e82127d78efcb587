/** Backoff growth and Retry-After reading, without a server. */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import { APIError } from "openai/core/error";
import {
  backoffDelayMs,
  classifyFailure,
  isRetryableStatus,
  retryAfterFromHeaders,
  retryHintFromMessage,
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

Deno.test("an error inside a 200 stream is classified by its own code or type", () => {
  const midStream = (error: Record<string, unknown>) =>
    classifyFailure(new APIError(undefined, error, undefined, undefined), 0, 60_000);
  const cases: Array<[Record<string, unknown>, number | undefined, boolean]> = [
    [{ code: "invalid_api_key", message: "bad key" }, 401, false],
    [{ type: "authentication_error", message: "bad key" }, 401, false],
    [{ code: "context_length_exceeded", message: "too long" }, 400, false],
    [{ code: "insufficient_quota", message: "no credit" }, 402, false],
    [{ code: 401, message: "OpenRouter's numeric code" }, 401, false],
    [{ code: "rate_limit_exceeded", message: "slow down" }, 429, true],
    [{ type: "overloaded_error", message: "busy" }, 503, true],
    [{ code: "server_error", message: "oops" }, 500, true],
    [{ code: "something_new", message: "unknown" }, undefined, true],
    [{ message: "no name at all" }, undefined, true],
  ];
  for (const [error, status, retryable] of cases) {
    const failure = midStream(error);
    assertEquals([failure.status, failure.retryable], [status, retryable], JSON.stringify(error));
    assert(failure.reason.includes("mid-stream"), failure.reason);
  }
  // The code is named in the reason, so the words the user reads carry it.
  assert(midStream({ code: "context_length_exceeded" }).reason.includes("context_length_exceeded"));
  // A rate limit's own words set its wait; another error's do not.
  assertEquals(
    midStream({ code: "rate_limit_exceeded", message: "try again in 2s" }).retryAfterMs,
    2000,
  );
  assertEquals(
    midStream({ code: "server_error", message: "try again in 2s" }).retryAfterMs,
    undefined,
  );
});

Deno.test("a wait asked for in words is read in ms, seconds or minutes, and capped", () => {
  assertEquals(retryHintFromMessage("Please try again in 1.5s.", 60_000), 1500);
  assertEquals(retryHintFromMessage("Please try again in 200ms.", 60_000), 200);
  assertEquals(retryHintFromMessage("retry after 20 seconds", 60_000), 20_000);
  assertEquals(retryHintFromMessage("try again in 5 minutes", 60_000), 60_000);
  assertEquals(retryHintFromMessage("try again later", 60_000), undefined);
  assertEquals(retryHintFromMessage(undefined, 60_000), undefined);
});
