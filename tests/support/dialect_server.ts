/**
 * Test servers that speak one real server's Chat Completions dialect: the
 * stream it sends (reasoning fields, per-call data, usage) and the requests
 * it refuses, with the refusal it answers. Each follows its vendor's docs:
 *
 * - deepseek: reasoning in `delta.reasoning_content`; an assistant message
 *   with tool calls must come back with its `reasoning_content`, else 400
 *   "Missing `reasoning_content` field in the assistant message at message
 *   index N". Usage with `prompt_cache_hit_tokens` and reasoning tokens.
 *   https://api-docs.deepseek.com/guides/thinking_mode#tool-calls
 * - gemini: each tool call carries `extra_content.google.thought_signature`;
 *   a call of the current turn (after the last user message) sent back
 *   without one is refused (400, an array body) "Function call is missing a
 *   thought_signature in functionCall parts…"; earlier turns are not checked.
 *   https://ai.google.dev/gemini-api/docs/thought-signatures and
 *   https://ai.google.dev/gemini-api/docs/openai
 * - openrouter: reasoning in `delta.reasoning` and, in pieces,
 *   `delta.reasoning_details`, which must come back unchanged; an error's
 *   upstream text is in `error.metadata.raw`. Usage with `cost`.
 *   https://openrouter.ai/docs/use-cases/reasoning-tokens#preserving-reasoning-blocks
 *   https://openrouter.ai/docs/use-cases/usage-accounting
 *   https://openrouter.ai/docs/api-reference/errors
 * - mistral: tool call ids of exactly 9 letters or digits, and no user
 *   message right after a tool message; refusals in Mistral's own body
 *   (`{"object": "error", "message": …}`).
 *   https://docs.mistral.ai/capabilities/function_calling/
 * - vllm: reasoning in `delta.reasoning` (its name since `reasoning_content`
 *   was renamed). https://docs.vllm.ai/en/latest/features/reasoning_outputs.html
 * - ollama: reasoning in `delta.reasoning` on its OpenAI-compatible endpoint.
 *   https://docs.ollama.com/api/openai-compatibility
 * - reasoning effort (`acceptedEfforts`): a value the model does not take is
 *   refused as its server words it. Gemini: 400 "Invalid reasoning_effort:
 *   minimal. Valid values are: high, low, medium, none" (its OpenAI layer, as
 *   users quote it: https://discuss.ai.google.dev/t/openai-compat-api-rejects-reasoning-effort-minimal-for-gemini-3-flash/118724);
 *   vLLM: 400 with its request validation of the `reasoning_effort` literal
 *   (https://docs.vllm.ai/en/latest/serving/openai_compatible_server.html);
 *   others: OpenAI's 400 "Unsupported parameter: 'reasoning_effort' is not
 *   supported with this model." OpenRouter takes `reasoning: {"effort"}`
 *   (https://openrouter.ai/docs/use-cases/reasoning-tokens).
 * - llamacpp, lmstudio: reasoning in `delta.reasoning_content` (llama.cpp's
 *   `--reasoning-format deepseek`, its default; LM Studio's separated
 *   reasoning). https://github.com/ggml-org/llama.cpp/tree/master/tools/server
 *   and https://lmstudio.ai/docs/app/api/endpoints/openai
 */
import { makeSandbox, type Sandbox } from "./cli.ts";

export type DialectName =
  | "deepseek"
  | "gemini"
  | "openrouter"
  | "mistral"
  | "vllm"
  | "ollama"
  | "llamacpp"
  | "lmstudio";

/** Servers that stream reasoning as DeepSeek names it. */
const REASONING_CONTENT: readonly DialectName[] = ["deepseek", "llamacpp", "lmstudio"];

/** One answer: optional reasoning, then text or one tool call. */
export interface DialectTurn {
  reasoning?: string;
  text?: string;
  call?: { name: string; arguments: Record<string, unknown> };
}

export interface DialectServer {
  url: string;
  /** Every request body, in order. */
  requests: Record<string, unknown>[];
  /** What each request was answered: "ok" or the refusal's text. */
  answers: string[];
  close(): Promise<void>;
}

type Message = Record<string, unknown> & { role: string };

export interface DialectServerOptions {
  /** The reasoning efforts the model takes (others are refused); empty: the field is refused. @default any */
  acceptedEfforts?: readonly string[];
}

/** Start a server speaking `dialect` on 127.0.0.1; each accepted request takes the next turn. */
export function startDialectServer(
  dialect: DialectName,
  turns: DialectTurn[],
  options: DialectServerOptions = {},
): DialectServer {
  const requests: Record<string, unknown>[] = [];
  const answers: string[] = [];
  let next = 0;
  /** What this server handed out, to check what comes back. */
  const issued = { signatures: new Map<string, string>(), details: new Map<string, unknown>() };
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, async (req) => {
    if (req.method !== "POST") return new Response("not found", { status: 404 });
    const body = await req.json();
    requests.push(body);
    const refusal = refuseEffort(dialect, body, options.acceptedEfforts) ??
      refuse(dialect, body.messages as Message[], issued);
    if (refusal) {
      answers.push(refusal.said);
      return Response.json(refusal.body, { status: 400 });
    }
    answers.push("ok");
    const turn = turns[next++] ?? { text: "(script ended)" };
    return new Response(stream(dialect, turn, next, issued), {
      headers: { "content-type": "text/event-stream" },
    });
  });
  const { port } = server.addr as Deno.NetAddr;
  return {
    url: `http://127.0.0.1:${port}/v1`,
    requests,
    answers,
    close: () => server.shutdown(),
  };
}

interface Issued {
  signatures: Map<string, string>;
  details: Map<string, unknown>;
}

function refuse(
  dialect: DialectName,
  messages: Message[],
  issued: Issued,
): { body: unknown; said: string } | undefined {
  const currentTurn = messages.findLastIndex((message) => message.role === "user");
  for (const [index, message] of messages.entries()) {
    const calls = (message.tool_calls ?? []) as {
      id: string;
      function: { name: string };
      extra_content?: { google?: { thought_signature?: string } };
    }[];
    if (dialect === "deepseek" && message.role === "assistant" && calls.length) {
      if (typeof message.reasoning_content !== "string") {
        const said =
          `Missing \`reasoning_content\` field in the assistant message at message index ${index}. For more information, please refer to https://api-docs.deepseek.com/guides/thinking_mode#tool-calls`;
        return {
          said,
          body: {
            error: {
              message: said,
              type: "invalid_request_error",
              param: null,
              code: "invalid_request_error",
            },
          },
        };
      }
    }
    if (dialect === "gemini" && message.role === "assistant" && index > currentTurn) {
      for (const call of calls) {
        const expected = issued.signatures.get(call.id);
        const sent = call.extra_content?.google?.thought_signature;
        if (expected ? sent !== expected : !sent) {
          const said =
            `Function call is missing a thought_signature in functionCall parts. This is required for tools to work correctly, and missing thought_signature may lead to degraded model performance. Additional data, function call \`default_api:${call.function.name}\` , position ${
              index + 1
            }. Please refer to https://ai.google.dev/gemini-api/docs/thought-signatures for more details.`;
          return {
            said,
            body: [{ error: { code: 400, message: said, status: "INVALID_ARGUMENT" } }],
          };
        }
      }
    }
    if (dialect === "openrouter" && message.role === "assistant" && calls.length) {
      // A thinking model's call without its reasoning blocks (lost, or written elsewhere) is refused.
      const expected = issued.details.get(calls[0].id);
      const sent = message.reasoning_details;
      if (!sent || (expected && JSON.stringify(sent) !== JSON.stringify(expected))) {
        // What the upstream (Anthropic, thinking on) says of a tool use without its thinking block.
        const raw = JSON.stringify({
          type: "error",
          error: {
            type: "invalid_request_error",
            message:
              `messages.${index}.content.0.type: Expected \`thinking\` or \`redacted_thinking\`, but found \`tool_use\`. When \`thinking\` is enabled, a final \`assistant\` message must start with a thinking block.`,
          },
        });
        return {
          said: raw,
          body: {
            error: {
              code: 400,
              message: "Provider returned error",
              metadata: { raw, provider_name: "Anthropic" },
            },
          },
        };
      }
    }
    if (dialect === "mistral") {
      const ids = [
        ...calls.map((call) => call.id),
        ...(message.role === "tool" ? [String(message.tool_call_id)] : []),
      ];
      for (const id of ids) {
        if (!/^[a-zA-Z0-9]{9}$/.test(id)) {
          const said = `Tool call id was ${id} but must be a-z, A-Z, 0-9, with a length of 9.`;
          return { said, body: mistralError(said) };
        }
      }
      if (message.role === "user" && messages[index - 1]?.role === "tool") {
        const said = "Unexpected role 'user' after role 'tool'";
        return { said, body: mistralError(said) };
      }
    }
  }
  return undefined;
}

/** A reasoning effort the model does not take, refused in its server's words. */
function refuseEffort(
  dialect: DialectName,
  body: Record<string, unknown>,
  accepted: readonly string[] | undefined,
): { body: unknown; said: string } | undefined {
  const effort = body.reasoning_effort;
  if (accepted === undefined || effort === undefined || accepted.includes(String(effort))) {
    return undefined;
  }
  if (dialect === "gemini") {
    const said = `Invalid reasoning_effort: ${effort}. Valid values are: ${accepted.join(", ")}`;
    return { said, body: [{ error: { code: 400, message: said, status: "INVALID_ARGUMENT" } }] };
  }
  if (dialect === "vllm") {
    const said = `[{'type': 'literal_error', 'loc': ('body', 'reasoning_effort'), 'msg': "Input ` +
      `should be ${accepted.map((value) => `'${value}'`).join(" or ")}", 'input': '${effort}'}]`;
    return { said, body: { object: "error", message: said, type: "BadRequestError", code: 400 } };
  }
  const said = "Unsupported parameter: 'reasoning_effort' is not supported with this model.";
  return {
    said,
    body: {
      error: {
        message: said,
        type: "invalid_request_error",
        param: "reasoning_effort",
        code: "unsupported_parameter",
      },
    },
  };
}

function mistralError(message: string) {
  return { object: "error", message, type: "invalid_request_error", param: null, code: null };
}

/** The answer as the dialect streams it. */
function stream(dialect: DialectName, turn: DialectTurn, number: number, issued: Issued) {
  const chunks: Record<string, unknown>[] = [];
  const delta = (fields: Record<string, unknown>, finish: string | null = null) =>
    chunks.push({
      id: `chatcmpl-${number}`,
      object: "chat.completion.chunk",
      choices: [{ index: 0, delta: fields, finish_reason: finish }],
    });
  delta({ role: "assistant", content: dialect === "deepseek" ? null : "" });
  if (turn.reasoning) {
    const pieces = turn.reasoning.match(/[\s\S]{1,12}/g) ?? [];
    for (const piece of pieces) {
      if (REASONING_CONTENT.includes(dialect)) delta({ reasoning_content: piece, content: null });
      else if (dialect === "openrouter") {
        delta({
          reasoning: piece,
          reasoning_details: [{
            type: "reasoning.text",
            text: piece,
            index: 0,
            format: "anthropic-claude-v1",
          }],
        });
      } else delta({ reasoning: piece });
    }
    if (dialect === "openrouter") {
      delta({
        reasoning_details: [{ type: "reasoning.text", signature: `sig-${number}`, index: 0 }],
      });
    }
  }
  if (turn.text) delta({ content: turn.text });
  let finish = "stop";
  if (turn.call) {
    finish = "tool_calls";
    const id = dialect === "mistral" ? `Ab${number}cdEfgh`.slice(0, 9) : `call_${number}_xyz`;
    const call: Record<string, unknown> = {
      index: 0,
      id,
      type: "function",
      function: { name: turn.call.name, arguments: JSON.stringify(turn.call.arguments) },
    };
    if (dialect === "gemini") {
      const signature = `c2lnbmF0dXJl${number}`;
      issued.signatures.set(id, signature);
      call.extra_content = { google: { thought_signature: signature } };
    }
    if (dialect === "openrouter" && turn.reasoning) {
      issued.details.set(id, [{
        type: "reasoning.text",
        text: turn.reasoning,
        index: 0,
        format: "anthropic-claude-v1",
        signature: `sig-${number}`,
      }]);
    }
    delta({ tool_calls: [call] });
  }
  delta({}, finish);
  const reasoningTokens = turn.reasoning ? 7 : 0;
  const usage: Record<string, unknown> = {
    prompt_tokens: 100,
    completion_tokens: 20,
    total_tokens: 120,
    completion_tokens_details: { reasoning_tokens: reasoningTokens },
  };
  if (dialect === "deepseek") {
    Object.assign(usage, { prompt_cache_hit_tokens: 64, prompt_cache_miss_tokens: 36 });
  }
  if (dialect === "openrouter") {
    Object.assign(usage, { cost: 0.0015, prompt_tokens_details: { cached_tokens: 50 } });
  }
  chunks.push({ id: `chatcmpl-${number}`, object: "chat.completion.chunk", choices: [], usage });
  const text = chunks.map((chunk) => `data: ${JSON.stringify(chunk)}\n\n`).join("") +
    "data: [DONE]\n\n";
  return new TextEncoder().encode(text);
}

/** A sandbox pointed at a dialect server, with a file to read; both cleaned up after `work`. */
export async function withDialectSandbox(
  dialect: DialectName,
  turns: DialectTurn[],
  work: (sandbox: Sandbox, server: DialectServer) => Promise<void>,
  config?: Record<string, unknown>,
  options: DialectServerOptions = {},
): Promise<void> {
  const server = startDialectServer(dialect, turns, options);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, SKIFF_MODEL: "test-model" });
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "the answer is 42\n");
    if (config) {
      await Deno.writeTextFile(`${sandbox.configDir}/config.json`, JSON.stringify(config));
    }
    await work(sandbox, server);
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
}
