/**
 * `skiff doctor --model <id>` end to end against servers answering as the
 * real ones do:
 * - vLLM without a tool-call parser: the Qwen model's `<tool_call>` streamed
 *   as content (vllm-project/vllm#17161), its thinking in
 *   `delta.reasoning_content` (https://docs.vllm.ai/en/latest/features/reasoning_outputs/),
 *   and `max_model_len` on its /v1/models entry.
 * - llama.cpp's server without `--jinja`: HTTP 500
 *   `{"error":{"code":500,"message":"tools param requires --jinja flag","type":"server_error"}}`
 *   (as users quote it, e.g. containers/ramalama#988), `meta.n_ctx_train` on /v1/models.
 * - a server that parses calls: `delta.tool_calls`.
 * - OpenAI for a model served only on the Responses API: 404 "This model is only
 *   supported in v1/responses and not in v1/chat/completions."
 */
import { assertStringIncludes } from "../../support/assert.ts";
import { makeSandbox, runSkiff } from "../../support/cli.ts";
import { modelWouldFail } from "../../../src/cli/doctor/doctor_model.ts";
import { assertEquals } from "../../support/assert.ts";

type Server = "vllm-no-parser" | "llama-no-jinja" | "structured" | "responses-only";

function sse(chunks: Record<string, unknown>[]): Response {
  const text = chunks.map((chunk) =>
    `data: ${
      JSON.stringify({
        id: "chatcmpl-1",
        object: "chat.completion.chunk",
        created: 1,
        model: "m",
        ...chunk,
      })
    }\n\n`
  ).join("") + "data: [DONE]\n\n";
  return new Response(text, { headers: { "content-type": "text/event-stream" } });
}

const delta = (fields: Record<string, unknown>, finish: string | null = null) => ({
  choices: [{ index: 0, delta: fields, logprobs: null, finish_reason: finish }],
});

function serve(kind: Server) {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, (request) => {
    const url = new URL(request.url);
    if (url.pathname === "/v1/models") {
      const entry = kind === "llama-no-jinja"
        ? {
          id: "qwen2.5-7b.gguf",
          object: "model",
          owned_by: "llamacpp",
          meta: { n_ctx_train: 32768 },
        }
        : { id: "Qwen/Qwen3-8B", object: "model", owned_by: "vllm", max_model_len: 40960 };
      return Response.json({ object: "list", data: [entry] });
    }
    if (kind === "responses-only") {
      // OpenAI's answer for a model it serves only on the Responses API.
      if (url.pathname === "/v1/responses") {
        return Response.json({ id: "resp_1", status: "completed" });
      }
      return Response.json({
        error: {
          message: "This model is only supported in v1/responses and not in v1/chat/completions.",
          type: "invalid_request_error",
          param: "model",
          code: null,
        },
      }, { status: 404 });
    }
    if (kind === "llama-no-jinja") {
      return Response.json(
        {
          error: { code: 500, message: "tools param requires --jinja flag", type: "server_error" },
        },
        { status: 500 },
      );
    }
    if (kind === "structured") {
      return sse([
        delta({
          role: "assistant",
          tool_calls: [{
            index: 0,
            id: "call_1",
            type: "function",
            function: { name: "get_time", arguments: '{"zone":"UTC"}' },
          }],
        }),
        delta({}, "tool_calls"),
      ]);
    }
    return sse([
      delta({ role: "assistant", content: "" }),
      delta({ reasoning_content: "The user wants the time." }),
      delta({ content: '<tool_call>\n{"name": "get_time", ' }),
      delta({ content: '"arguments": {"zone": "UTC"}}\n</tool_call>' }),
      delta({}, "stop"),
    ]);
  });
  return { url: `http://127.0.0.1:${server.addr.port}/v1`, close: () => server.shutdown() };
}

async function doctor(kind: Server, model: string): Promise<{ code: number; stdout: string }> {
  const server = serve(kind);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url });
  try {
    return await runSkiff(["doctor", "--model", model], sandbox);
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
}

Deno.test("doctor --model: vLLM without a parser — text calls skiff reads, reasoning, window", async () => {
  const { stdout } = await doctor("vllm-no-parser", "Qwen/Qwen3-8B");
  assertStringIncludes(stdout, "Model Qwen/Qwen3-8B (Qwen family)");
  assertStringIncludes(stdout, "wire: Chat Completions (HTTP 200)");
  assertStringIncludes(
    stdout,
    "tool calls: text (Hermes/Qwen <tool_call>) — skiff will read them as calls (textToolCalls: auto)",
  );
  assertStringIncludes(stdout, "--enable-auto-tool-choice --tool-call-parser hermes");
  assertStringIncludes(stdout, "reasoning: streamed (delta.reasoning_content)");
  assertStringIncludes(stdout, "context window: 40960 tokens (the server's max_model_len)");
});

Deno.test("doctor --model: llama.cpp without --jinja — the refusal and its fix; exit 1", async () => {
  const { code, stdout } = await doctor("llama-no-jinja", "qwen2.5-7b.gguf");
  assertStringIncludes(stdout, "(HTTP 500: tools param requires --jinja flag)");
  assertStringIncludes(stdout, "start llama.cpp's server with --jinja");
  assertStringIncludes(stdout, "context window: 32768 tokens (the server's meta.n_ctx_train)");
  assertEquals(code, 1);
});

Deno.test("doctor --model: a server that parses calls", async () => {
  const { stdout } = await doctor("structured", "Qwen/Qwen3-8B");
  assertStringIncludes(stdout, "tool calls: structured (the server parses them)");
  assertStringIncludes(stdout, "reasoning: none streamed");
});

Deno.test("doctor --model fails a model whose text calls a run would take as its answer", () => {
  const reading = {
    kind: "calls" as const,
    format: "hermes" as const,
    calls: [{ name: "get_time", arguments: "{}" }],
    text: "",
  };
  const facts = {
    id: "qwen",
    probe: { chat: { status: 200 }, toolCalls: { kind: "text" as const, reading, sample: "" } },
    toolSchemas: "openai" as const,
    assumedContext: { tokens: 32768, source: "builtin" as const },
  };
  assertEquals(modelWouldFail({ ...facts, textToolCalls: "auto" }), false);
  assertEquals(modelWouldFail({ ...facts, textToolCalls: "off" }), true);
});

Deno.test("doctor --model: a model served only on the Responses API", async () => {
  const { stdout } = await doctor("responses-only", "gpt-5-codex");
  assertStringIncludes(
    stdout,
    "wire: Chat Completions not found (HTTP 404); the Responses API answers (HTTP 200)",
  );
  assertStringIncludes(stdout, '"wire": "auto"');
});
