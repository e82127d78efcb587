/**
 * The ChatProvider for any OpenAI-compatible endpoint: Chat Completions
 * streaming, decoded by npm:openai's stream and error classes (chat_post.ts;
 * its client, with every other resource of the API, is not loaded). Retrying
 * is ours (which failures, how long to wait, never repeating text
 * the user already saw after a stream is cut), so it can be tested with an
 * injected fetch, sleep, clock and random source.
 */
import { APIError } from "openai/core/error";
import { backgroundTimeout } from "../lib/background_ticks.ts";
import { type ConnectProbe, tcpConnectProbe } from "./connect_probe.ts";
import { watchForDone } from "./chat/done_sentinel.ts";
import { withReadableErrors } from "./error_body.ts";
import { jsonAsStream } from "./chat/json_as_stream.ts";
import { describeFailure } from "./failure_message.ts";
import { postChatCompletions } from "./chat/chat_post.ts";
import { outputLimitField } from "./model_limits.ts";
import {
  type OutputLimitField,
  refusesStreamOptions,
  wantsOtherLimitField,
} from "./chat/request_fallbacks.ts";
import {
  type AttemptFailure,
  backoffDelayMs,
  type BackoffOptions,
  classifyFailure,
} from "./retry_policy.ts";
import {
  type RequestBody,
  type RequestBodyBuilder,
  RequestBodyWriter,
} from "./chat/request_body.ts";
import { StreamAssembler, type StreamChunk, TextDeliveryGuard } from "./chat/stream_assembler.ts";
import {
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  ProviderError,
  type StreamHandlers,
} from "./types.ts";
import { emptyUsage } from "../contracts/events.ts";
import { type ModelPrice, withCost } from "./cost.ts";
import type { RateLimiter } from "./rate_limiter.ts";
import { dialectFor, type DialectSetting, originOf } from "./dialects/dialect.ts";
import { EFFORT_FIELD, effortFields, refusesEffort } from "./dialects/reasoning_effort.ts";
import { RefusedFields } from "./refused_fields.ts";

export interface OpenAIProviderOptions extends BackoffOptions {
  /** e.g. "https://api.openai.com/v1" or "http://127.0.0.1:8080/v1". */
  baseURL: string;
  /** Sent as a bearer token. Local servers often need none. @default "no-key" */
  apiKey?: string;
  /** Longest wait for the response headers, and then between two streamed chunks. @default 300000 */
  requestTimeoutMs?: number;
  /** Retries after the first attempt (so 4 means up to 5 requests). @default 4 */
  maxRetries?: number;
  /**
   * Time budget for an endpoint that cannot be connected to (refused, host
   * unknown, reset before answering, or silently dropping packets): no retry
   * of such a failure starts after this much time since the first attempt,
   * and a request still unanswered after a moment is checked with a TCP
   * probe bounded by what is left of it, so a dead endpoint fails fast.
   * @default 15000
   */
  connectTimeoutMs?: number;
  /** A longer Retry-After than this is shortened to it. @default 60000 */
  retryAfterCapMs?: number;
  /**
   * The request field carrying the output limit. By default "max_completion_tokens"
   * for OpenAI's reasoning models (o1, o3, gpt-5…), "max_tokens" for the rest,
   * which is what other OpenAI-compatible servers understand.
   */
  maxTokensField?: "max_tokens" | "max_completion_tokens";
  /** Ask for usage in the final chunk (stream_options.include_usage). @default true */
  streamUsage?: boolean;
  /**
   * Writes each request's JSON from its fields, messages and tools: another
   * protocol's body (the Responses API's) sent through this client.
   * @default Chat Completions, each message serialised once (request_body.ts)
   */
  bodyWriter?: RequestBodyBuilder;
  /**
   * A model's price, to add `cost_usd` to the usage of each answer
   * (src/provider/cost.ts `priceFor`); none: tokens only.
   */
  price?: (model: string) => ModelPrice | undefined;
  /** Extra headers on every request. */
  headers?: Record<string, string>;
  /**
   * The history rules of the server (dialects/dialect.ts); "auto" tells
   * them by the base URL's host. @default "auto"
   */
  dialect?: DialectSetting;
  fetch?: typeof fetch;
  /** Wait between retries; must reject (or resolve early) when `signal` aborts. */
  sleep?: (ms: number, signal?: AbortSignal) => Promise<void>;
  /** [0, 1), for jitter. */
  random?: () => number;
  /** Milliseconds, for elapsed time and HTTP-date Retry-After. */
  now?: () => number;
  /** Checks whether a silent endpoint accepts TCP connections at all. @default tcpConnectProbe */
  probe?: ConnectProbe;
  /** The endpoint's pace shared with other sessions (a batch's tasks; src/provider/rate_limiter.ts). */
  limiter?: RateLimiter;
  /**
   * Optional fields the server refused, by model (refused_fields.ts): kept
   * by a caller that makes a client per request. @default this client's own
   */
  refusedFields?: RefusedFields;
}

/** Our caller's onText threw: their bug, not the network's, so it is never retried. */
class HandlerFailed extends Error {
  constructor(override readonly cause: unknown) {
    super("onText handler failed");
  }
}

/** We abandoned an attempt: no bytes for requestTimeoutMs, or the host cannot be connected to. */
class GaveUp extends Error {
  constructor(readonly why: "timed out" | "unreachable") {
    super(why);
  }
}

/**
 * Create a provider. Needs --allow-net for the endpoint's host.
 *
 * ```ts
 * const provider = createOpenAIProvider({ baseURL: "http://127.0.0.1:8080/v1" });
 * const answer = await provider.stream({ model, messages, tools: [] }, { onText: write });
 * ```
 */
export function createOpenAIProvider(options: OpenAIProviderOptions): ChatProvider {
  const baseURL = options.baseURL.replace(/\/+$/, "");
  const requestTimeoutMs = options.requestTimeoutMs ?? 300_000;
  const maxRetries = options.maxRetries ?? 4;
  const connectTimeoutMs = options.connectTimeoutMs ?? 15_000;
  const retryAfterCapMs = options.retryAfterCapMs ?? 60_000;
  const sleep = options.sleep ?? abortableSleep;
  const random = options.random ?? Math.random;
  const now = options.now ?? Date.now;
  const probe = options.probe ?? tcpConnectProbe;
  // Probe a silent endpoint early enough that the whole connect budget is not spent waiting.
  const probeAfterMs = Math.min(2_000, connectTimeoutMs / 4);
  if (!Number.isInteger(maxRetries) || maxRetries < 0) {
    throw new RangeError(`maxRetries must be a whole number ≥ 0: current value is ${maxRetries}`);
  }
  if (!(requestTimeoutMs > 0)) {
    throw new RangeError(`requestTimeoutMs must be positive: current value is ${requestTimeoutMs}`);
  }

  const endpointURL = parseEndpoint(options.baseURL);
  // Error bodies in any shape become readable; a JSON answer to a stream request becomes a stream.
  const readableFetch = jsonAsStream(withReadableErrors(options.fetch));

  // Set once the server has refused stream_options (older servers reject unknown fields).
  let usageOptionRefused = false;
  // Model → the output-limit field its server asked for instead of the one we guessed.
  const limitFieldFor = new Map<string, OutputLimitField>();

  function limitField(model: string): OutputLimitField {
    return limitFieldFor.get(model) ?? options.maxTokensField ?? outputLimitField(model);
  }

  const refused = options.refusedFields ?? new RefusedFields();
  // Each message's JSON is made once and reused by every later request (request_body.ts).
  const origin = originOf(baseURL);
  const dialect = dialectFor(baseURL, options.dialect);
  const bodies: RequestBodyBuilder = options.bodyWriter ?? new RequestBodyWriter({
    origin,
    dialect,
  });

  /** Whether a request for `request.model` carries its reasoning effort. */
  function asksEffort(request: ChatRequest): boolean {
    return request.reasoningEffort !== undefined && refused.allows(request.model, EFFORT_FIELD);
  }

  /** The request's fields but the messages and tools, which `bodies` adds to its text. */
  function requestBody(request: ChatRequest): Record<string, unknown> {
    const askUsage = options.streamUsage !== false && !usageOptionRefused;
    return {
      model: request.model,
      stream: true as const,
      ...(askUsage ? { stream_options: { include_usage: true } } : {}),
      ...(request.maxOutputTokens ? { [limitField(request.model)]: request.maxOutputTokens } : {}),
      ...(request.temperature !== undefined ? { temperature: request.temperature } : {}),
      ...(asksEffort(request) ? effortFields(request.reasoningEffort!, dialect) : {}),
    };
  }

  /**
   * One request; resolves when the stream ends (complete or not) telling
   * whether the server sent [DONE], throws on failure. `connectDeadline` is
   * when the connect budget runs out.
   */
  async function attempt(
    body: RequestBody,
    assembler: StreamAssembler,
    guard: TextDeliveryGuard,
    reasoningGuard: TextDeliveryGuard,
    signal: AbortSignal | undefined,
    connectDeadline: number,
  ): Promise<{ sawDone: boolean }> {
    const done = watchForDone(readableFetch);
    const controller = new AbortController();
    const forwardAbort = () => controller.abort(signal?.reason);
    signal?.addEventListener("abort", forwardAbort, { once: true });
    let gaveUp: "timed out" | "unreachable" | undefined;
    const giveUp = (why: "timed out" | "unreachable") => {
      gaveUp ??= why;
      controller.abort();
    };
    // No bytes for requestTimeoutMs: give up. Each chunk only stamps the time, and
    // the watch looks again when its wait ends. Its waits, and the probe's, are
    // background timers (lib/background_ticks.ts): the request in flight keeps
    // the process alive, and a run's first request loads no timers module (docs/performance.md).
    let lastBytes = now();
    let stopIdleWatch = () => {};
    const watchIdle = (wait: number) => {
      stopIdleWatch = backgroundTimeout(wait, () => {
        const quiet = now() - lastBytes;
        if (quiet >= requestTimeoutMs) giveUp("timed out");
        else watchIdle(requestTimeoutMs - quiet);
      });
    };
    const armIdleTimer = () => {
      lastBytes = now();
    };
    watchIdle(requestTimeoutMs);
    let answered = false;
    const probing = new AbortController(); // stops a probe still running when the attempt ends
    const stopProbeTimer = backgroundTimeout(probeAfterMs, async () => {
      const budget = Math.max(1_000, connectDeadline - now());
      const reachable = await probe(endpointURL, budget, probing.signal).catch(() => true);
      if (!reachable && !answered) giveUp("unreachable");
    });
    try {
      // The JSON text goes as it is (request_body.ts), never serialised again.
      const stream = await postChatCompletions({
        baseURL,
        apiKey: options.apiKey || "no-key",
        headers: options.headers,
        fetch: done.fetch,
        body,
        controller,
      });
      answered = true;
      stopProbeTimer();
      armIdleTimer();
      for await (const chunk of stream) {
        armIdleTimer();
        const thought = assembler.reasoning.length;
        if (assembler.add(chunk as StreamChunk) !== "") guard.offer(assembler.text);
        if (assembler.reasoning.length !== thought) reasoningGuard.offer(assembler.reasoning);
        // An error inside a choice is read like the stream's own error event.
        if (assembler.failure !== undefined) {
          throw new APIError(undefined, assembler.failure, undefined, undefined);
        }
      }
    } catch (error) {
      if (gaveUp) throw new GaveUp(gaveUp);
      throw error;
    } finally {
      answered = true;
      stopProbeTimer();
      probing.abort();
      stopIdleWatch();
      signal?.removeEventListener("abort", forwardAbort);
    }
    // The library ends the iteration quietly when its request is aborted.
    if (gaveUp) throw new GaveUp(gaveUp);
    return { sawDone: done.seen() };
  }

  async function stream(
    request: ChatRequest,
    handlers: StreamHandlers,
    signal?: AbortSignal,
  ): Promise<ChatResponse> {
    let body = requestBody(request);
    let json = bodies.body(body, request.messages, request.tools);
    const guard = new TextDeliveryGuard((delta) => {
      try {
        handlers.onText?.(delta);
      } catch (error) {
        throw new HandlerFailed(error);
      }
    });
    const reasoningGuard = new TextDeliveryGuard((delta) => {
      try {
        handlers.onReasoning?.(delta);
      } catch (error) {
        throw new HandlerFailed(error);
      }
    });
    const started = now();
    for (let retry = 0;; retry++) {
      throwIfAborted(signal);
      await options.limiter?.wait(sleep, signal);
      const assembler = new StreamAssembler(newCallId, (name) => {
        try {
          handlers.onToolName?.(name);
        } catch {
          // A preparation that failed is the call's to report, when it runs.
        }
      });
      let failure: AttemptFailure;
      try {
        const { sawDone } = await attempt(
          json,
          assembler,
          guard,
          reasoningGuard,
          signal,
          started + connectTimeoutMs,
        );
        throwIfAborted(signal);
        // [DONE] without a finish_reason is how some servers end a whole answer.
        if (assembler.finishReason !== null || sawDone) {
          options.limiter?.succeeded();
          const toolCalls = assembler.toolCalls();
          const providerData = assembler.providerData(origin);
          return {
            text: assembler.text,
            toolCalls,
            finishReason: assembler.finishReason ?? (toolCalls.length ? "tool_calls" : "stop"),
            // No usage reported: no tokens known, so no cost either.
            usage: assembler.usage
              ? withCost(assembler.usage, options.price?.(request.model))
              : emptyUsage(),
            ...(assembler.reasoning ? { reasoning: assembler.reasoning } : {}),
            ...(providerData ? { providerData } : {}),
          };
        }
        failure = {
          retryable: true,
          reason: "stream ended before the answer was complete",
          connection: false,
        };
      } catch (error) {
        throwIfAborted(signal);
        if (error instanceof HandlerFailed) throw error.cause;
        failure = error instanceof GaveUp
          ? error.why === "unreachable"
            ? { retryable: true, reason: "connection timed out", connection: true }
            : { retryable: true, reason: "timed out", connection: false }
          : classifyFailure(error, now(), retryAfterCapMs);
      }

      if ("stream_options" in body && refusesStreamOptions(failure)) {
        // Ask again at once without it: usage is then unknown, but the answer comes.
        usageOptionRefused = true;
        body = requestBody(request);
        json = bodies.body(body, request.messages, request.tools);
        retry--; // the request changed; the server did not fail
        continue;
      }
      if (
        asksEffort(request) && refusesEffort(failure.status, failure.serverMessage) &&
        refused.refuse(request.model, EFFORT_FIELD)
      ) {
        // The model takes no effort, or not this one: its default, said once, beats failing the run.
        handlers.onRetry?.({
          attempt: retry + 1,
          delayMs: 0,
          reason: `${baseURL} refused reasoning effort "${request.reasoningEffort}" for ` +
            `${request.model} (${failure.serverMessage ?? failure.reason}): asking again without ` +
            `it; set another "reasoningEffort" for this model in the provider config, or none`,
        });
        body = requestBody(request);
        json = bodies.body(body, request.messages, request.tools);
        retry--;
        continue;
      }
      const wanted = request.maxOutputTokens ? wantsOtherLimitField(failure, body) : undefined;
      if (wanted && !limitFieldFor.has(request.model)) {
        // A reasoning model under a name we did not recognise (or the reverse): use its field.
        limitFieldFor.set(request.model, wanted);
        body = requestBody(request);
        json = bodies.body(body, request.messages, request.tools);
        retry--;
        continue;
      }
      // Retry-After is a least wait: "0" from a server still refusing must not make us hammer it.
      const backoff = backoffDelayMs(retry + 1, random, options);
      const delayMs = Math.max(failure.retryAfterMs ?? 0, backoff);
      const outOfConnectBudget = failure.connection && now() - started + delayMs > connectTimeoutMs;
      options.limiter?.failed(failure, delayMs);
      if (!failure.retryable || retry >= maxRetries || outOfConnectBudget) {
        const message = describeFailure(failure, {
          endpoint: baseURL,
          model: request.model,
          attempts: retry + 1,
          elapsedMs: now() - started,
          requestTimeoutMs,
        });
        throw new ProviderError(message, failure.status, baseURL, failure.code);
      }
      handlers.onRetry?.({ attempt: retry + 1, delayMs, reason: failure.reason });
      await sleep(delayMs, signal);
    }
  }

  return { baseURL, stream };
}

function parseEndpoint(baseURL: string): URL {
  const url = URL.parse(baseURL);
  if (!url || !/^https?:$/.test(url.protocol)) {
    throw new RangeError(
      `baseURL must be an http(s) URL such as http://127.0.0.1:8080/v1: current value is "${baseURL}"`,
    );
  }
  return url;
}

function newCallId(): string {
  return `call_${crypto.randomUUID().replaceAll("-", "").slice(0, 24)}`;
}

function throwIfAborted(signal: AbortSignal | undefined): void {
  if (!signal?.aborted) return;
  throw signal.reason ?? new DOMException("The request was cancelled.", "AbortError");
}

function abortableSleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason);
    const onAbort = () => {
      clearTimeout(timer);
      reject(signal!.reason);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", onAbort);
      resolve();
    }, ms);
    signal?.addEventListener("abort", onAbort, { once: true });
  });
}
