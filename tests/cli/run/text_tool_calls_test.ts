/**
 * `skiff run --json` against servers that leave a model's tool calls in its
 * text: the calls stream as plain `delta.content`, `tool_calls` empty and
 * finish_reason "stop". vLLM does so under a tool-call parser that does not
 * match the model (vllm-project/vllm#21571: Qwen3-Coder's
 * `<tool_call><function=…>` under `--tool-call-parser hermes`; #17161), and
 * local servers whose chat template does not parse the model's calls. The
 * Hermes format is documented at https://docs.vllm.ai/en/latest/features/tool_calling/.
 * The test server below answers in exactly that stream
 * (tests/support/mock_server.ts sends `text` as content * deltas). Gemini's endpoint refuses a tool schema outside its subset with
 * 400 INVALID_ARGUMENT "Unknown name \"exclusiveMinimum\" at
 * 'tools[0].function_declarations[…]'" (https://ai.google.dev/api/caching#Schema
 * lists the subset; the refusal text as users quote it).
 */
import { assert, assertEquals, assertStringIncludes } from "../../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../../support/cli.ts";
import type { MockTurn } from "../../support/mock_server.ts";

const HERMES_WRITE = "I will create it.\n<tool_call>\n" +
  '{"name": "write", "arguments": {"file_path": "hello.txt", "content": "hi\\n"}}\n' +
  "</tool_call>";

function events(stdout: string, type: string) {
  return parseJsonLines(stdout).filter((event) => event.type === type);
}

Deno.test("a Hermes call written as text runs, and the run completes with its effect", async () => {
  await withMockSandbox(
    [{ text: HERMES_WRITE }, { text: "Created hello.txt." }],
    async (sandbox, mock) => {
      const result = await runSkiff(["run", "--json", "create hello.txt"], sandbox);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(await Deno.readTextFile(`${sandbox.workspace}/hello.txt`), "hi\n");
      const completed = events(result.stdout, "tool.completed");
      assertEquals(completed.length, 1);
      // The markup is not an answer: neither shown nor kept as the message's text.
      for (const event of events(result.stdout, "message.delta")) {
        assert(!String(event.text).includes("<tool_call>"), JSON.stringify(event));
      }
      const texts = events(result.stdout, "message.completed").map((event) => event.text);
      assertEquals(texts, ["I will create it.", "Created hello.txt."]);
      // The follow-up request carries the call as a call, answered by its result.
      const history = mock.requests[1].messages as Record<string, unknown>[];
      const assistant = history.find((message) => message.role === "assistant")!;
      const calls = assistant.tool_calls as { id: string; function: { name: string } }[];
      assertEquals(calls.map((call) => call.function.name), ["write"]);
      assertEquals(history.at(-1)?.role, "tool");
      assertEquals(history.at(-1)?.tool_call_id, calls[0].id);
    },
  );
});

Deno.test("an unreadable text call fails the run (exit 4), naming the server setting to fix", async () => {
  const broken: MockTurn = {
    text: '<tool_call>\n{"name": "write", "arguments": {file_path: hello.txt}}\n</tool_call>',
  };
  await withMockSandbox([broken], async (sandbox, mock) => {
    const result = await runSkiff(["run", "--json", "create hello.txt"], sandbox);
    assertEquals(result.code, 4, result.stderr);
    const [error] = events(result.stdout, "error");
    assertStringIncludes(String(error.message), "--jinja");
    assertStringIncludes(String(error.message), "--enable-auto-tool-choice --tool-call-parser");
    assertEquals(events(result.stdout, "session.completed")[0].exit_code, 4);
    assertEquals(mock.requests.length, 1, "not retried: the server answered, wrongly configured");
    assertEquals(events(result.stdout, "tool.started").length, 0);
  });
});

Deno.test("textToolCalls off: the markup stays text, and the run ends with it as the answer", async () => {
  await withMockSandbox([{ text: HERMES_WRITE }], async (sandbox) => {
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      '{ "provider": { "models": { "mock-model": { "textToolCalls": "off" } } } }',
    );
    const result = await runSkiff(["run", "--json", "create hello.txt"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const texts = events(result.stdout, "message.completed").map((event) => event.text);
    assertEquals(texts, [HERMES_WRITE]);
    assertEquals(events(result.stdout, "tool.started").length, 0);
  });
});

Deno.test("toolSchemas gemini: schemas in Gemini's subset, which its endpoint accepts", async () => {
  const refused = /"(additionalProperties|exclusiveMinimum|\$schema|const|propertyNames)"/;
  await withMockSandbox([], async (sandbox, mock) => {
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      '{ "provider": { "models": { "mock-*": { "toolSchemas": "gemini" } } } }',
    );
    const result = await runSkiff(["run", "--json", "hi"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assert(!refused.test(JSON.stringify(mock.requests[0].tools)));
  }, {
    respond(body) {
      const keyword = refused.exec(JSON.stringify(body.tools))?.[1];
      if (!keyword) return { text: "hello" };
      return {
        status: 400,
        body: {
          error: {
            code: 400,
            message: `Invalid JSON payload received. Unknown name "${keyword}" at ` +
              "'tools[0].function_declarations[0].parameters': Cannot find field.",
            status: "INVALID_ARGUMENT",
          },
        },
      };
    },
  });
});

Deno.test("Qwen3-Coder's XML call as vLLM's hermes parser leaves it (closing tags cut) runs", async () => {
  // The content quoted in vllm-project/vllm#21571, with this session's tool.
  const xml = "<tool_call>\n<function=write>\n<parameter=file_path>\nnotes.txt\n" +
    "<parameter=content>\nfirst line\n\n\n</tool_call>";
  await withMockSandbox([{ text: xml }, { text: "Done." }], async (sandbox) => {
    const result = await runSkiff(["run", "--json", "write notes.txt"], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(await Deno.readTextFile(`${sandbox.workspace}/notes.txt`), "first line");
    const texts = events(result.stdout, "message.completed").map((event) => event.text);
    assertEquals(texts, ["Done."]);
  });
});
