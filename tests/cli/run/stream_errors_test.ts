/**
 * End-to-end: an endpoint that answers 200 and then sends an error inside the
 * stream — OpenAI's bare `data: {"error": …}`, OpenRouter's chunk with the
 * error beside a choice finished with "error", or the error inside that
 * choice — is judged by the error's own code as an HTTP error would be: a bad
 * key is not retried and exits as a provider failure naming the key, an
 * overflow compacts and the run goes on, a rate limit is waited out as asked.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn, MockWire } from "../../support/mock_server.ts";

const BAD_KEY = {
  message: "Incorrect API key provided: sk-wrong. You can find your API key at the dashboard.",
  type: "invalid_request_error",
  code: "invalid_api_key",
};

const OVERFLOW = {
  message: "This model's maximum context length is 16384 tokens. However, your messages " +
    "resulted in 24576 tokens. Please reduce the length of the messages.",
  type: "invalid_request_error",
  code: "context_length_exceeded",
};

const RATE_LIMIT = {
  message: "Rate limit reached for requests per min. Please try again in 1.2s.",
  type: "requests",
  code: "rate_limit_exceeded",
};

/** A 200 answer whose stream ends in `error`, sent in `shape`. */
function failing(error: unknown, shape: MockWire["errorShape"]): MockTurn {
  return { text: "", wire: { error, errorShape: shape } };
}

type Event = Record<string, unknown>;

function ofType(events: Event[], type: string): Event[] {
  return events.filter((event) => event.type === type);
}

for (const shape of ["bare", "openrouter", "choice"] as const) {
  Deno.test(`a bad key sent inside a 200 stream (${shape}) is not retried and names the key`, async () => {
    await withMockSandbox(
      [failing(BAD_KEY, shape), { text: "unreached" }],
      async (sandbox, mock) => {
        const result = await runSkiff(["run", "--json", "hello"], sandbox);
        assertEquals(result.code, 4, result.stderr);
        assertEquals(mock.requests.length, 1, "a bad key is asked once");
        const events = parseJsonLines(result.stdout);
        assertEquals(ofType(events, "provider.retry"), []);
        const [error] = ofType(events, "error");
        const message = String(error.message);
        assertStringIncludes(message, "invalid_api_key");
        assertStringIncludes(message, "Incorrect API key provided");
        assertStringIncludes(
          message,
          "Check the API key (apiKey in the skiff config, or OPENAI_API_KEY)",
        );
        assertEquals(error.exit_code, 4);
      },
    );
  });
}

Deno.test("an overflow sent inside a 200 stream compacts, as an HTTP 400 overflow does, and the run goes on", async () => {
  for (const shape of ["bare", "openrouter"] as const) {
    await withMockSandbox([
      { toolCalls: [{ name: "read", arguments: { file_path: "a.txt" }, id: "c1" }] },
      { toolCalls: [{ name: "read", arguments: { file_path: "b.txt" }, id: "c2" }] },
      failing(OVERFLOW, shape),
      { text: "All done." },
    ], async (sandbox, mock) => {
      const line = "0123456789 abcdefghij klmnopqrst uvwxyz ".repeat(2) + "\n";
      await Deno.writeTextFile(`${sandbox.workspace}/a.txt`, line.repeat(500));
      await Deno.writeTextFile(`${sandbox.workspace}/b.txt`, line.repeat(500));
      const result = await runSkiff(["run", "--json", "read a.txt and b.txt"], sandbox);
      assertEquals(result.code, 0, `${shape}: ${result.stderr}\n${result.stdout.slice(-3000)}`);
      const events = parseJsonLines(result.stdout);
      assertEquals(ofType(events, "provider.retry"), [], `${shape}: an overflow is not retried`);
      const compacted = ofType(events, "context.compacted");
      assertEquals(compacted.map((event) => event.trigger), ["overflow"], shape);
      assertEquals(compacted[0].window, 16384, `${shape}: the window the server named is used`);
      assertEquals(mock.requests.length, 4, shape);
      const retried = JSON.stringify(mock.requests[3].messages);
      assert(retried.length < JSON.stringify(mock.requests[2].messages).length, shape);
      assertEquals(events.at(-1)!.text, "All done.");
    });
  }
});

Deno.test("a rate limit sent inside a 200 stream is retried after the wait its message asks for", async () => {
  await withMockSandbox([
    failing(RATE_LIMIT, "openrouter"),
    { text: "Answered after the wait." },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "hello"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(mock.requests.length, 2);
    const events = parseJsonLines(result.stdout);
    const retries = ofType(events, "provider.retry");
    assertEquals(retries.length, 1);
    assertStringIncludes(String(retries[0].reason), "429 Too Many Requests reported mid-stream");
    assert(Number(retries[0].delay_ms) >= 1200, `waited ${retries[0].delay_ms} ms`);
    assertEquals(events.at(-1)!.text, "Answered after the wait.");
  });
});

Deno.test("control: an unnamed server error inside the stream is still retried", async () => {
  await withMockSandbox([
    failing({ message: "The server had an error while processing your request." }, "bare"),
    { text: "Second time lucky." },
  ], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "hello"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(mock.requests.length, 2);
    assertEquals(ofType(parseJsonLines(result.stdout), "provider.retry").length, 1);
  });
});
