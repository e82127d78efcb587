/**
 * End-to-end: a model with an 8k window (`--model gpt-4`) completes a tool
 * round trip against an endpoint that refuses, as OpenAI's does, any request
 * whose prompt and output limit together exceed the window. The prompt is
 * counted as the request's bytes / 4, a count the mock can make and that
 * runs above a tokenizer's for English and JSON.
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";

const WINDOW = 8_192;

/** The tokens the endpoint counts for a request: its prompt by bytes / 4, and its output limit. */
function requested(body: Record<string, unknown>): number {
  const prompt = Math.ceil(new TextEncoder().encode(JSON.stringify(body)).length / 4);
  const limit = Number(body.max_tokens ?? body.max_completion_tokens ?? 0);
  return prompt + limit;
}

/** A refusal in OpenAI's words, for a request over the window. */
function refuseOverWindow(body: Record<string, unknown>): MockTurn | undefined {
  const tokens = requested(body);
  if (tokens <= WINDOW) return undefined;
  return {
    status: 400,
    body: {
      error: {
        message: `This model's maximum context length is ${WINDOW} tokens. However, you ` +
          `requested ${tokens} tokens. Please reduce the length of the messages or completion.`,
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    },
  };
}

const SCRIPT: MockTurn[] = [
  { toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" }, id: "c1" }] },
  { text: "The notes say hello." },
];

function toolNames(body: Record<string, unknown>): string[] {
  return (body.tools as { function: { name: string } }[]).map((tool) => tool.function.name);
}

Deno.test("an 8k-window model reads a file and answers, every request within its window", async () => {
  let refused = 0;
  await withMockSandbox(SCRIPT, async (sandbox, mock) => {
    await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "hello\nworld\n".repeat(40));
    const result = await runSkiff(
      ["run", "--json", "--model", "gpt-4", "what do the notes say?"],
      sandbox,
    );
    assertEquals(result.code, 0, result.stderr + result.stdout.slice(-2000));
    assertEquals(refused, 0, "no request went over the window");
    assertEquals(mock.requests.length, 2);
    const events = parseJsonLines(result.stdout);
    const read = events.find((event) => event.type === "tool.completed");
    assertEquals([read?.tool, read?.ok], ["read", true]);
    assertEquals(events.at(-1)!.text, "The notes say hello.");
    for (const body of mock.requests) {
      assert(requested(body) <= WINDOW, `${requested(body)} tokens requested`);
      // The core tools, each whole; the rest are not offered to an 8k window.
      assertEquals(toolNames(body), ["bash", "read", "write", "edit", "glob", "grep", "list"]);
    }
    // The output limit asked for is the model's own (4096): the prompt leaves room for it.
    assertEquals(mock.requests[0].max_tokens, 4_096);
    const second = JSON.stringify(mock.requests[1].messages);
    assertStringIncludes(second, "hello");
  }, {
    respond: (body) => {
      const refusal = refuseOverWindow(body);
      if (refusal) refused++;
      return refusal;
    },
  });
});

Deno.test("control: a large-window model is offered every tool, a request this mock would refuse at 8k", async () => {
  await withMockSandbox([{ text: "hi" }], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "--model", "gpt-4-32k", "hello"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const [opening] = mock.requests;
    assert(toolNames(opening).length > 15, toolNames(opening).join());
    assert(toolNames(opening).includes("webfetch"));
    assert(refuseOverWindow(opening) !== undefined, `${requested(opening)} tokens fit in 8k`);
  });
});
