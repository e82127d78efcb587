/**
 * When a failed model request is worth repeating, and how long to wait first.
 * Kept apart from the client so the rules (which statuses retry, how
 * Retry-After is read, how backoff grows) are plain functions a test can
 * check without a server.
 */
import {
  APIConnectionError,
  APIConnectionTimeoutError,
  APIError,
  APIUserAbortError,
} from "openai/core/error";
import { NotTheApiError } from "./chat/json_as_stream.ts";
import { OVERFLOW_ERROR_NAMES } from "./types.ts";

/** What went wrong with one attempt, in terms the retry loop and the user need. */
export interface AttemptFailure {
  retryable: boolean;
  /** Short, human: "429 Too Many Requests", "connection refused", "stream cut midway". */
  reason: string;
  status?: number;
  /** The server's own explanation, when it sent one. */
  serverMessage?: string;
  /** The server's name for the error (`code`, else `type`), when it sent one. */
  code?: string;
  /** The server asked for this wait (Retry-After / retry-after-ms), already capped. */
  retryAfterMs?: number;
  /** No HTTP response at all: refused, unresolvable host, reset before headers. */
  connection: boolean;
  /** What answered is not a model API: the base URL points at the wrong place. */
  wrongEndpoint?: boolean;
  /** The server is set up without something the request needs: what to change, for the user. */
  setupFix?: string;
}

/**
 * Answers that no retry changes, read from the server's own words: a wrong
 * path (LM Studio answers any unknown path with 200 and this error, so a base
 * URL without /v1 reaches no model), or a server started without what the
 * request needs (llama.cpp's llama-server refuses tools without --jinja).
 */
function setupProblem(
  serverMessage: string | undefined,
): Pick<AttemptFailure, "wrongEndpoint" | "setupFix" | "reason"> | undefined {
  if (!serverMessage) return undefined;
  if (/^Unexpected endpoint or method\b/i.test(serverMessage)) {
    return { wrongEndpoint: true, reason: `an error for an unknown path ("${serverMessage}")` };
  }
  if (/requires --jinja/i.test(serverMessage)) {
    return {
      reason: "tool calls switched off on the server",
      setupFix: "Start llama-server with --jinja (tool calls need its chat template), " +
        "or use a build where it is the default.",
    };
  }
  return undefined;
}

export interface BackoffOptions {
  /** First retry waits about this long. @default 500 */
  baseDelayMs?: number;
  /** No computed wait exceeds this. @default 8000 */
  maxDelayMs?: number;
}

/** Statuses that say "try again": timeouts, conflicts, rate limits and server faults. */
export function isRetryableStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

/**
 * Exponential backoff with ±25 % jitter for retry number `attempt` (1-based):
 * 500, 1000, 2000, 4000 ms… capped at `maxDelayMs`. `random` returns [0, 1).
 */
export function backoffDelayMs(
  attempt: number,
  random: () => number,
  options: BackoffOptions = {},
): number {
  const base = options.baseDelayMs ?? 500;
  const cap = options.maxDelayMs ?? 8000;
  const raw = Math.min(cap, base * 2 ** Math.max(0, attempt - 1));
  return Math.round(raw * (0.75 + 0.5 * random()));
}

/**
 * Read a wait request from response headers: `retry-after-ms`, then
 * `Retry-After` as seconds or an HTTP date. Capped at `capMs` so a server
 * asking for an hour cannot freeze a run; undefined when absent or unreadable.
 */
export function retryAfterFromHeaders(
  headers: Headers | undefined,
  nowMs: number,
  capMs: number,
): number | undefined {
  if (!headers) return undefined;
  const milliseconds = headers.get("retry-after-ms");
  if (milliseconds !== null && milliseconds.trim() !== "") {
    const value = Number(milliseconds);
    if (Number.isFinite(value) && value >= 0) return Math.min(value, capMs);
  }
  const header = headers.get("retry-after");
  if (header === null || header.trim() === "") return undefined;
  const seconds = Number(header);
  if (Number.isFinite(seconds)) return seconds >= 0 ? Math.min(seconds * 1000, capMs) : undefined;
  const date = Date.parse(header);
  if (Number.isNaN(date)) return undefined;
  return Math.min(Math.max(0, date - nowMs), capMs);
}

const STATUS_TEXT: Record<number, string> = {
  400: "Bad Request",
  401: "Unauthorized",
  402: "Payment Required",
  403: "Forbidden",
  404: "Not Found",
  408: "Request Timeout",
  409: "Conflict",
  413: "Payload Too Large",
  422: "Unprocessable Entity",
  429: "Too Many Requests",
  500: "Internal Server Error",
  502: "Bad Gateway",
  503: "Service Unavailable",
  504: "Gateway Timeout",
};

function statusReason(status: number): string {
  const text = STATUS_TEXT[status];
  return text ? `${status} ${text}` : `HTTP ${status}`;
}

/** Walk `cause` links and join their messages, to find "Connection refused" deep inside. */
function causeText(error: unknown): string {
  const parts: string[] = [];
  let current: unknown = error;
  for (let depth = 0; current && depth < 5; depth++) {
    if (current instanceof Error) {
      parts.push(current.message);
      current = (current as { cause?: unknown }).cause;
    } else {
      parts.push(String(current));
      break;
    }
  }
  return parts.join(" | ");
}

/** Turn a low-level network message into a few words a user recognises. */
export function describeNetworkCause(error: unknown): string {
  const text = causeText(error);
  if (/refused/i.test(text)) return "connection refused";
  if (/reset|broken pipe|connection closed|hang ?up/i.test(text)) return "connection reset";
  if (/lookup|dns|resolve|name or service|ENOTFOUND|nodename/i.test(text)) {
    return "host name could not be resolved";
  }
  if (/certificate|tls|ssl/i.test(text)) return `TLS error (${firstLine(text)})`;
  if (/timed? ?out/i.test(text)) return "timed out";
  return firstLine(text) || "network error";
}

function firstLine(text: string): string {
  const line = text.split("\n")[0].trim();
  return line.length > 160 ? `${line.slice(0, 157)}...` : line;
}

function serverMessageOf(error: APIError): string | undefined {
  const body = error.error as { message?: unknown } | undefined;
  if (body && typeof body.message === "string") return body.message;
  if (typeof body === "string") return body;
  return undefined;
}

/**
 * The HTTP status an error's own name stands for, for an error sent inside a
 * 200 stream, where no status came: OpenAI's `code`s, Anthropic-style
 * `type`s, OpenRouter's and other gateways' names. The status decides the
 * rest as it does for an HTTP error: a bad key is not retried, an overflow is
 * the context's to handle, a rate limit is waited out.
 */
const NAMED_STATUS: Array<[RegExp, number]> = [
  [
    /^(invalid_api_key|missing_api_key|invalid_authentication|authentication_error|unauthorized|unauthenticated|key_disabled|invalid_key|expired_api_key)$/i,
    401,
  ],
  [/^(permission_denied|permission_error|forbidden|unsupported_country_region_territory)$/i, 403],
  [OVERFLOW_ERROR_NAMES, 400],
  [
    /^(insufficient_quota|insufficient_credits|credit_limit_reached|billing_hard_limit_reached)$/i,
    402,
  ],
  [/^(model_not_found|not_found_error|not_found)$/i, 404],
  [/^(rate_limit_exceeded|rate_limit_error|rate_limited|too_many_requests)$/i, 429],
  [/^(invalid_request_error|bad_request|invalid_request)$/i, 400],
  [/^(server_error|api_error|internal_error|internal_server_error)$/i, 500],
  [/^(overloaded_error|overloaded|service_unavailable|engine_overloaded)$/i, 503],
];

/**
 * An error object's name (`code`, then `type`) and the status it stands
 * for; a code that is itself a status (OpenRouter's `"code": 502`) is that status.
 */
function namedStatusOf(body: unknown): { status?: number; name?: string } {
  const status = httpCodeOf(body);
  if (status !== undefined) return { status };
  if (body === null || typeof body !== "object") return {};
  const record = body as Record<string, unknown>;
  let firstName: string | undefined;
  for (const key of ["code", "type"]) {
    const name = record[key];
    if (typeof name !== "string" || name === "") continue;
    firstName ??= name;
    const known = NAMED_STATUS.find(([pattern]) => pattern.test(name));
    if (known) return { status: known[1], name };
  }
  return { name: firstName };
}

/**
 * The wait a server's words ask for ("Please try again in 1.5s", "in 200ms",
 * "retry after 20 seconds"), capped; an error inside a stream has no headers
 * of its own to carry it.
 */
export function retryHintFromMessage(
  message: string | undefined,
  capMs: number,
): number | undefined {
  const found = message?.match(
    /(?:try again|retry) (?:in|after) (\d+(?:\.\d+)?) ?(ms|milliseconds?|s|sec(?:ond)?s?|m|min(?:ute)?s?)\b/i,
  );
  if (!found) return undefined;
  const value = Number(found[1]);
  const unit = found[2].toLowerCase();
  const ms = unit.startsWith("ms") || unit.startsWith("milli")
    ? value
    : unit === "m" || unit.startsWith("min")
    ? value * 60_000
    : value * 1000;
  return Number.isFinite(ms) ? Math.min(Math.ceil(ms), capMs) : undefined;
}

/** An HTTP-like status code (400–599) in an error object's `code` or `status`, if any. */
function httpCodeOf(body: unknown): number | undefined {
  if (body === null || typeof body !== "object") return undefined;
  for (const key of ["code", "status"]) {
    const value = (body as Record<string, unknown>)[key];
    const code = typeof value === "string" && /^\d{3}$/.test(value) ? Number(value) : value;
    if (typeof code === "number" && Number.isInteger(code) && code >= 400 && code <= 599) {
      return code;
    }
  }
  return undefined;
}

/**
 * Classify an error thrown while requesting or reading a stream. Caller
 * aborts are not classified here: the loop checks its own signal first.
 */
export function classifyFailure(
  error: unknown,
  nowMs: number,
  retryAfterCapMs: number,
): AttemptFailure {
  if (error instanceof APIConnectionTimeoutError) {
    return { retryable: true, reason: "timed out", connection: false };
  }
  if (error instanceof APIConnectionError) {
    const cause = (error as { cause?: unknown }).cause ?? error;
    if (cause instanceof NotTheApiError) {
      return { retryable: false, reason: cause.message, connection: false, wrongEndpoint: true };
    }
    // The runtime refusing the port (Deno blocks a few, like 9 and 25) will not change on retry.
    const blocked = /blocked/i.test(causeText(cause));
    return { retryable: !blocked, reason: describeNetworkCause(cause), connection: true };
  }
  if (error instanceof APIUserAbortError) {
    return { retryable: true, reason: "request aborted", connection: false };
  }
  if (error instanceof APIError) {
    const serverMessage = serverMessageOf(error);
    const setup = setupProblem(serverMessage);
    if (setup) {
      return {
        retryable: false,
        ...setup,
        ...(error.status !== undefined ? { status: error.status } : {}),
        serverMessage,
        connection: false,
      };
    }
    if (error.status === undefined) {
      // An error event inside a 200 stream: the server failed while answering.
      // Its own code, when it gives one, says whether trying again can help.
      const { status: code, name } = namedStatusOf(error.error);
      const named = name ? ` (${name})` : "";
      const retryAfterMs = retryAfterFromHeaders(error.headers, nowMs, retryAfterCapMs) ??
        retryHintFromMessage(serverMessage, retryAfterCapMs);
      return {
        retryable: code === undefined || isRetryableStatus(code),
        reason: code === undefined
          ? `server reported an error mid-stream${named}`
          : `${statusReason(code)} reported mid-stream${named}`,
        ...(code === undefined ? {} : { status: code }),
        serverMessage,
        ...(name === undefined ? {} : { code: name }),
        ...(code === 429 && retryAfterMs !== undefined ? { retryAfterMs } : {}),
        connection: false,
      };
    }
    const { name } = namedStatusOf(error.error);
    return {
      retryable: isRetryableStatus(error.status),
      reason: statusReason(error.status),
      status: error.status,
      serverMessage,
      ...(name === undefined ? {} : { code: name }),
      retryAfterMs: retryAfterFromHeaders(error.headers, nowMs, retryAfterCapMs),
      connection: false,
    };
  }
  if (error instanceof SyntaxError) {
    return { retryable: true, reason: "malformed stream data", connection: false };
  }
  // Anything else surfaced while reading the body is the transport failing midway.
  return {
    retryable: true,
    reason: `stream cut midway (${describeNetworkCause(error)})`,
    connection: false,
  };
}
