/**
 * Calls written as text, in the forms models write them when no server
 * parser reads them. The samples follow the formats vLLM's parsers read
 * (https://docs.vllm.ai/en/latest/features/tool_calling/) and what users
 * quote from servers without one (vllm-project/vllm#17161, #21571).
 */
import { assertEquals } from "../../support/assert.ts";
import {
  readTextToolCalls,
  withTextToolCalls,
} from "../../../src/provider/dialects/text_tool_calls.ts";
import type { ChatProvider, ToolSchema } from "../../../src/provider/types.ts";
import { ProviderError } from "../../../src/provider/types.ts";
import { emptyUsage } from "../../../src/contracts/events.ts";

const TOOLS: ToolSchema[] = [
  {
    name: "read",
    description: "read a file",
    parameters: {
      type: "object",
      properties: { file_path: { type: "string" }, limit: { type: "integer" } },
    },
  },
  { name: "bash", description: "run", parameters: { type: "object", properties: {} } },
];

function calls(text: string, setting: Parameters<typeof readTextToolCalls>[1] = "auto") {
  const reading = readTextToolCalls(text, setting, TOOLS);
  return reading.kind === "calls"
    ? {
      format: reading.format,
      text: reading.text,
      calls: reading.calls.map((call) => [call.name, JSON.parse(call.arguments)]),
    }
    : reading.kind;
}

Deno.test("Hermes/Qwen <tool_call> JSON, with text before it and two calls", () => {
  assertEquals(
    calls(
      'Let me look.\n<tool_call>\n{"name": "read", "arguments": {"file_path": "a.ts"}}\n</tool_call>\n' +
        '<tool_call>\n{"name": "bash", "arguments": "{\\"command\\": \\"ls\\"}"}\n</tool_call>',
    ),
    {
      format: "hermes",
      text: "Let me look.",
      calls: [["read", { file_path: "a.ts" }], ["bash", { command: "ls" }]],
    },
  );
});

Deno.test("Qwen3-Coder's XML body, closing tags cut as servers quote it", () => {
  assertEquals(
    calls(
      "<tool_call>\n<function=read>\n<parameter=file_path>\na.ts\n<parameter=limit>\n20\n\n\n</tool_call>",
    ),
    { format: "hermes", text: "", calls: [["read", { file_path: "a.ts", limit: 20 }]] },
  );
});

Deno.test("Mistral [TOOL_CALLS], the JSON list and the [ARGS] form", () => {
  assertEquals(
    calls('[TOOL_CALLS][{"name": "read", "arguments": {"file_path": "b.ts"}}]'),
    { format: "mistral", text: "", calls: [["read", { file_path: "b.ts" }]] },
  );
  assertEquals(
    calls('[TOOL_CALLS]read[ARGS]{"file_path": "c.ts"}[TOOL_CALLS]bash[ARGS]{"command": "ls"}'),
    {
      format: "mistral",
      text: "",
      calls: [["read", { file_path: "c.ts" }], ["bash", { command: "ls" }]],
    },
  );
});

Deno.test("Llama 3 JSON is a call only when it names a tool of the request", () => {
  assertEquals(
    calls('<|python_tag|>{"name": "read", "parameters": {"file_path": "d.ts"}}'),
    { format: "llama3", text: "", calls: [["read", { file_path: "d.ts" }]] },
  );
  assertEquals(calls('{"name": "Ada", "parameters": {"age": 36}}'), "none");
});

Deno.test("DeepSeek V3 and V3.1 markup", () => {
  const v3 = "<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>function<｜tool▁sep｜>read\n```json\n" +
    '{"file_path": "e.ts"}\n```<｜tool▁call▁end｜><｜tool▁calls▁end｜>';
  assertEquals(calls(v3), {
    format: "deepseek",
    text: "",
    calls: [["read", { file_path: "e.ts" }]],
  });
  const v31 = 'ok<｜tool▁calls▁begin｜><｜tool▁call▁begin｜>bash<｜tool▁sep｜>{"command": "ls"}' +
    "<｜tool▁call▁end｜><｜tool▁calls▁end｜>";
  assertEquals(calls(v31), {
    format: "deepseek",
    text: "ok",
    calls: [["bash", { command: "ls" }]],
  });
});

Deno.test("a call drafted in a <think> block left in the text is not run; the one after it is", () => {
  const call = '<tool_call>{"name": "read", "arguments": {"file_path": "a.ts"}}</tool_call>';
  const drafted = '<tool_call>{"name": "bash", "arguments": {"command": "rm -rf x"}}</tool_call>';
  assertEquals(calls(`<think>maybe ${drafted}? no.</think>\n${call}`), {
    format: "hermes",
    text: `<think>maybe ${drafted}? no.</think>`,
    calls: [["read", { file_path: "a.ts" }]],
  });
});

Deno.test("markup that cannot be read, or of another format, is unreadable; code and off are text", () => {
  assertEquals(
    calls('<tool_call>\n{"name": "read", "arguments": {file_path: a}}\n</tool_call>'),
    "unreadable",
  );
  assertEquals(calls("<|tool_calls_section_begin|> …"), "unreadable");
  assertEquals(calls('[TOOL_CALLS][{"name": "read", "arguments": {}}]', "hermes"), "unreadable");
  assertEquals(
    calls("Write `<tool_call>` in the template, then:\n```\n<tool_call>{}</tool_call>\n```"),
    "none",
  );
  assertEquals(calls('<tool_call>{"name": "read", "arguments": {}}</tool_call>', "off"), "none");
  assertEquals(
    readTextToolCalls('<tool_call>{"name": "read"}</tool_call>', "auto", []).kind,
    "none",
  );
});

/** A provider that streams `text` in small pieces and returns it. */
function scripted(text: string): ChatProvider {
  return {
    baseURL: "http://127.0.0.1:1/v1",
    stream(_request, handlers) {
      for (let at = 0; at < text.length; at += 3) handlers.onText?.(text.slice(at, at + 3));
      return Promise.resolve({ text, toolCalls: [], finishReason: "stop", usage: emptyUsage() });
    },
  };
}

async function streamed(text: string) {
  let shown = "";
  const provider = withTextToolCalls(scripted(text), () => "auto", () => "call_1");
  const response = await provider.stream(
    { model: "qwen2.5-coder", messages: [], tools: TOOLS },
    { onText: (delta) => shown += delta },
  );
  return { shown, response };
}

Deno.test("the markup of a call read is never shown; other text is shown once, whole", async () => {
  const call = await streamed(
    'Reading it.\n<tool_call>\n{"name": "read", "arguments": {"file_path": "a.ts"}}\n</tool_call>',
  );
  assertEquals(call.shown, "Reading it.\n");
  assertEquals(call.response.text, "Reading it.");
  assertEquals(call.response.finishReason, "tool_calls");
  assertEquals(call.response.toolCalls, [{
    id: "call_1",
    name: "read",
    arguments: '{"file_path":"a.ts"}',
  }]);

  const prose = "A <b>bold</b> answer, {not json} and [TOOL_CALL] nothing.";
  assertEquals((await streamed(prose)).shown, prose);
  const json = '{"name": "Ada"}';
  assertEquals((await streamed(json)).shown, json);
});

Deno.test("unreadable markup fails the request naming the server setting that fixes it", async () => {
  const provider = withTextToolCalls(scripted("<tool_call>\n{broken\n</tool_call>"), () => "auto");
  let error: unknown;
  try {
    await provider.stream({ model: "Qwen/Qwen2.5-7B-Instruct", messages: [], tools: TOOLS }, {});
  } catch (caught) {
    error = caught;
  }
  assertEquals(error instanceof ProviderError, true);
  const message = (error as Error).message;
  for (
    const fix of [
      "--jinja",
      "--enable-auto-tool-choice --tool-call-parser hermes",
      "docs/models.md",
    ]
  ) {
    assertEquals(message.includes(fix), true, message);
  }
});

Deno.test("an answer with structured calls is left as it is, its text shown whole", async () => {
  const text = 'See <tool_call>{"name": "bash", "arguments": {}}</tool_call>';
  const structured = { id: "call_s", name: "read", arguments: '{"file_path":"a.ts"}' };
  const inner: ChatProvider = {
    baseURL: "http://127.0.0.1:1/v1",
    stream(_request, handlers) {
      handlers.onText?.(text);
      return Promise.resolve({
        text,
        toolCalls: [structured],
        finishReason: "tool_calls",
        usage: emptyUsage(),
      });
    },
  };
  let shown = "";
  const response = await withTextToolCalls(inner, () => "auto").stream(
    { model: "qwen", messages: [], tools: TOOLS },
    { onText: (delta) => shown += delta },
  );
  assertEquals(response.toolCalls, [structured]);
  assertEquals(response.text, text);
  assertEquals(shown, text);
});
