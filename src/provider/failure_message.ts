/**
 * The words a user reads when the provider gives up: which endpoint, what it
 * answered (or why it could not be reached), how many tries, and what to
 * check next. One function so every give-up path reads the same way.
 */
import type { AttemptFailure } from "./retry_policy.ts";

export interface FailureContext {
  endpoint: string;
  model: string;
  attempts: number;
  elapsedMs: number;
  requestTimeoutMs: number;
}

const CHECK_URL = "the base URL (baseURL in the skiff config, or OPENAI_BASE_URL)";
const CHECK_KEY = "the API key (apiKey in the skiff config, or OPENAI_API_KEY)";

function tries(context: FailureContext): string {
  if (context.attempts <= 1) return "";
  const seconds = (context.elapsedMs / 1000).toFixed(1);
  return ` after ${context.attempts} attempts over ${seconds} s`;
}

/** "kept failing" only when there was more than one try. */
function repeated(context: FailureContext, many: string, once: string): string {
  return context.attempts > 1 ? many : once;
}

function detail(failure: AttemptFailure): string {
  return failure.serverMessage ? `: ${failure.serverMessage}` : "";
}

export function describeFailure(failure: AttemptFailure, context: FailureContext): string {
  const at = `the model endpoint ${context.endpoint}`;
  const status = failure.status;
  if (failure.wrongEndpoint) {
    return `${
      capitalise(at)
    } answered with ${failure.reason}, not the model API. Check ${CHECK_URL}; ` +
      `${withV1(context.endpoint)}.`;
  }
  if (failure.setupFix) {
    return `${capitalise(at)} refused the request (${failure.reason}${detail(failure)}). ` +
      `It was not retried: ${failure.setupFix}`;
  }
  if (failure.connection) {
    return `Cannot reach ${at} (${failure.reason})${tries(context)}. ` +
      `Check that the server is running and that ${CHECK_URL} is right.`;
  }
  if (status === 401 || status === 403) {
    return `${capitalise(at)} rejected the request (${failure.reason}${detail(failure)}). ` +
      `Check ${CHECK_KEY}.`;
  }
  if (status === 404) {
    return `${capitalise(at)} answered ${failure.reason}${detail(failure)}. ` +
      `Check ${CHECK_URL} (it usually ends in /v1) and that the model "${context.model}" ` +
      `is served there: /model in the chat lists the models it serves.`;
  }
  if (status === 429) {
    return `${capitalise(at)} ${repeated(context, "kept answering", "answered")} ${failure.reason}${
      tries(context)
    }${
      detail(failure)
    }. The rate limit or quota is exhausted: wait and try again, or check the plan of ${CHECK_KEY}.`;
  }
  if (status !== undefined && status >= 500) {
    return `${capitalise(at)} ${
      repeated(context, "kept failing", "failed")
    } with ${failure.reason}${tries(context)}${
      detail(failure)
    }. Check that the server is running and healthy (its logs), then try again.`;
  }
  if (status !== undefined) {
    return `${capitalise(at)} refused the request with ${failure.reason}${detail(failure)}. ` +
      `It was not retried: check the model name "${context.model}", its limits in the ` +
      `skiff config, ${CHECK_URL} and ${CHECK_KEY}.`;
  }
  if (failure.reason === "timed out") {
    return `${capitalise(at)} did not answer within ${
      Math.round(context.requestTimeoutMs / 1000)
    } s${tries(context)}. Check that the server is running and not overloaded; ` +
      `a slow local model may need a longer request timeout in the skiff config.`;
  }
  return `The answer from ${at} failed (${failure.reason}${detail(failure)})${tries(context)}. ` +
    `Check the network and that the server is running and healthy, then try again.`;
}

/** The fix for a base URL that misses its API version: the same URL with /v1, when it has none. */
function withV1(endpoint: string): string {
  const url = URL.parse(endpoint);
  if (url && !/\/v\d+\/?$/.test(url.pathname)) {
    url.pathname = url.pathname.replace(/\/*$/, "/v1");
    return `add /v1 to it: ${url.toString()}`;
  }
  return "it usually ends in /v1 (for example http://127.0.0.1:8080/v1)";
}

function capitalise(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}
