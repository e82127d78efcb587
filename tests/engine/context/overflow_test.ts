import { assert, assertEquals } from "../../support/assert.ts";
import {
  isContextOverflow,
  tokensFromOverflow,
  windowFromOverflow,
} from "../../../src/engine/context/overflow.ts";
import { ProviderError } from "../../../src/provider/types.ts";

/** What each server answers, as the provider's message quotes it. */
const REFUSALS: Array<[string, number | undefined, string]> = [
  [
    "OpenAI / OpenRouter",
    400,
    "This model's maximum context length is 128000 tokens. However, your messages resulted in 130512 tokens. Please reduce the length of the messages.",
  ],
  [
    "vLLM",
    400,
    "This model's maximum context length is 32768 tokens. However, you requested 33000 tokens (32000 in the messages, 1000 in the completion).",
  ],
  [
    "llama.cpp",
    400,
    "request (9000 tokens) exceeds the available context size (8192 tokens), try increasing it",
  ],
  ["llama.cpp (older)", 500, "the request exceeds the available context size, try increasing it"],
  ["Ollama", 400, "input length exceeds the context length"],
  ["Anthropic-style", 400, "prompt is too long: 210000 tokens > 200000 maximum"],
  ["an error inside the stream", undefined, "context_length_exceeded"],
];

Deno.test("the common 'context length exceeded' answers are recognised, with the window they name", () => {
  for (const [server, status, text] of REFUSALS) {
    const error = new ProviderError(`The model endpoint refused the request: ${text}`, status);
    assert(isContextOverflow(error), `${server} not recognised`);
  }
  assertEquals(windowFromOverflow(REFUSALS[0][2]), 128_000);
  assertEquals(windowFromOverflow(REFUSALS[2][2]), 8_192);
  assertEquals(windowFromOverflow("input length exceeds the context length"), undefined);
  // And the count the server made, which corrects ours.
  assertEquals(tokensFromOverflow(REFUSALS[0][2]), 130_512);
  assertEquals(tokensFromOverflow(REFUSALS[1][2]), 33_000);
  assertEquals(tokensFromOverflow(REFUSALS[2][2]), 9_000);
  assertEquals(tokensFromOverflow(REFUSALS[5][2]), 210_000);
});

Deno.test("an overflow named only by the error's code is recognised; a generic message alone is not", () => {
  const generic = "The model endpoint refused the request: Invalid request.";
  assert(isContextOverflow(new ProviderError(generic, 400, undefined, "context_length_exceeded")));
  assert(isContextOverflow(new ProviderError(generic, undefined, undefined, "request_too_large")));
  assert(!isContextOverflow(new ProviderError(generic, 400)));
  assert(!isContextOverflow(new ProviderError(generic, 400, undefined, "invalid_request_error")));
  // The code does not outweigh a status no overflow comes with.
  assert(!isContextOverflow(new ProviderError(generic, 401, undefined, "context_length_exceeded")));
});

Deno.test("other failures are not mistaken for a full window", () => {
  assert(!isContextOverflow(new ProviderError("rate limit exceeded", 429)));
  assert(!isContextOverflow(new ProviderError("maximum context length is 8192 tokens", 401)));
  assert(!isContextOverflow(new ProviderError("model not found", 404)));
  assert(!isContextOverflow(new Error("maximum context length is 8192 tokens")));
});
