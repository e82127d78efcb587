/**
 * Reasoning effort end to end through `skiff run --json`: the field arrives
 * where it is set, in the form each server takes (Chat Completions'
 * `reasoning_effort`, OpenRouter's `reasoning.effort`, the Responses API's
 * `reasoning: {effort, summary}`), is absent when unset, and a server's
 * refusal of it is answered by asking again without it, once, and not
 * sending it to that model again. Also the system prompt's family note.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import * as path from "node:path";
import {
  type DialectName,
  type DialectServer,
  type DialectServerOptions,
  type DialectTurn,
  withDialectSandbox,
} from "../../support/dialect_server.ts";
import {
  type ResponsesServer,
  type ResponsesServerOptions,
  type ResponsesTurn,
  startResponsesServer,
} from "../../support/responses_server.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox } from "../../support/cli.ts";
import { refusesEffort } from "../../../src/provider/dialects/reasoning_effort.ts";

type Event = Record<string, unknown>;

const READ_CALL: DialectTurn["call"] = { name: "read", arguments: { file_path: "notes.txt" } };
const TOOL_SESSION: DialectTurn[] = [
  { reasoning: "Read the notes first.", call: READ_CALL },
  { text: "The notes say 42." },
];

/** The shared dialect sandbox (tests/support/dialect_server.ts), with the config before the work. */
function withDialect(
  dialect: DialectName,
  turns: DialectTurn[],
  config: Record<string, unknown> | undefined,
  work: (sandbox: Sandbox, server: DialectServer) => Promise<void>,
  options: DialectServerOptions = {},
): Promise<void> {
  return withDialectSandbox(dialect, turns, work, config, options);
}

async function withResponses(
  script: ResponsesTurn[],
  config: Record<string, unknown>,
  work: (sandbox: Sandbox, server: ResponsesServer) => Promise<void>,
  options: ResponsesServerOptions = {},
): Promise<void> {
  const server = startResponsesServer(script, options);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-key" });
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "the answer is 42\n");
    await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify(config));
    await work(sandbox, server);
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
}

async function run(sandbox: Sandbox, args: string[]) {
  const result = await runSkiff(["run", "--json", ...args], sandbox);
  const events = parseJsonLines(result.stdout) as Event[];
  return { ...result, events };
}

function retries(events: Event[]): string[] {
  return events.filter((event) => event.type === "provider.retry").map((event) =>
    String(event.reason)
  );
}

function systemMessage(request: Record<string, unknown>): string {
  const messages = request.messages as { role: string; content: string }[];
  return messages.find((message) => message.role === "system")!.content;
}

Deno.test("reasoning effort: unset, nothing is sent; set for the provider, every request carries it", async () => {
  await withDialect("vllm", TOOL_SESSION, undefined, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(server.requests.length, 2);
    for (const request of server.requests) {
      assert(!("reasoning_effort" in request), "no effort is sent when none is set");
      assert(!("reasoning" in request));
    }
  });
  const config = { provider: { reasoningEffort: "high" } };
  await withDialect("vllm", TOOL_SESSION, config, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(server.requests.map((request) => request.reasoning_effort), ["high", "high"]);
  });
});

Deno.test("reasoning effort: a model's own entry wins over the provider's, and --reasoning-effort over both", async () => {
  const config = {
    provider: { reasoningEffort: "high", models: { "test-*": { reasoningEffort: "low" } } },
  };
  await withDialect(
    "ollama",
    [{ text: "a" }, { text: "b" }, { text: "c" }],
    config,
    async (sandbox, server) => {
      assertEquals((await run(sandbox, ["one"])).code, 0);
      const flagged = await run(sandbox, ["--reasoning-effort", "minimal", "two"]);
      assertEquals(flagged.code, 0, flagged.stderr);
      const other = await run(sandbox, ["--model", "other-model", "three"]);
      assertEquals(other.code, 0, other.stderr);
      assertEquals(server.requests.map((request) => request.reasoning_effort), [
        "low",
        "minimal",
        "high",
      ]);
    },
  );
});

Deno.test("reasoning effort: OpenRouter takes it in its reasoning object", async () => {
  const config = { provider: { dialect: "openrouter", reasoningEffort: "medium" } };
  await withDialect("openrouter", TOOL_SESSION, config, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.answers, ["ok", "ok"]);
    for (const request of server.requests) {
      assertEquals(request.reasoning, { effort: "medium" });
      assert(!("reasoning_effort" in request));
    }
  });
});

Deno.test("reasoning effort: Gemini refuses a value it does not take; asked again without it, once, and not sent again", async () => {
  const config = { provider: { models: { "test-model": { reasoningEffort: "minimal" } } } };
  const options = { acceptedEfforts: ["high", "low", "medium", "none"] };
  await withDialect("gemini", TOOL_SESSION, config, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.answers.length, 3, server.answers.join("\n"));
    assert(server.answers[0].startsWith("Invalid reasoning_effort: minimal"), server.answers[0]);
    assertEquals(server.answers.slice(1), ["ok", "ok"]);
    assertEquals(server.requests.map((request) => request.reasoning_effort), [
      "minimal",
      undefined,
      undefined,
    ]);
    const said = retries(result.events);
    assertEquals(said.length, 1, said.join("\n"));
    assert(said[0].includes('reasoning effort "minimal"') && said[0].includes("test-model"));
  }, options);
});

Deno.test("reasoning effort: vLLM's validation refusal is read the same way", async () => {
  const config = { provider: { reasoningEffort: "xhigh" } };
  await withDialect("vllm", [{ text: "fine" }], config, async (sandbox, server) => {
    const result = await run(sandbox, ["hi"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.requests.map((request) => request.reasoning_effort), ["xhigh", undefined]);
  }, { acceptedEfforts: ["low", "medium", "high"] });
});

Deno.test("reasoning effort: the Responses API takes it with the summary; refused, asked again without the effort alone", async () => {
  const script: ResponsesTurn[] = [
    { reasoning: "Reading notes.", toolCalls: [{ name: "read", arguments: READ_CALL!.arguments }] },
    { text: "It says 42." },
  ];
  const config = { provider: { model: "gpt-5", wire: "responses", reasoningEffort: "high" } };
  await withResponses(script, config, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.refusals.join("\n"));
    assertEquals(server.refusals, []);
    for (const request of server.requests) {
      assertEquals(request.reasoning, { effort: "high", summary: "auto" });
    }
  });
  await withResponses(script, config, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.refusals.join("\n"));
    assertEquals(server.refusals.length, 1, server.refusals.join("\n"));
    assert(server.refusals[0].includes("'reasoning.effort' is not supported"));
    assertEquals(server.requests.map((request) => request.reasoning), [
      { effort: "high", summary: "auto" },
      { summary: "auto" },
      { summary: "auto" },
    ]);
    assertEquals(retries(result.events).length, 1);
  }, { acceptedEfforts: [] });
  // Unset: a reasoning model gets its summary, and no effort.
  const unset = { provider: { model: "gpt-5", wire: "responses" } };
  await withResponses([{ text: "hi" }], unset, async (sandbox, server) => {
    assertEquals((await run(sandbox, ["hi"])).code, 0);
    assertEquals(server.requests[0].reasoning, { summary: "auto" });
  });
});

Deno.test("--reasoning-effort takes only the documented values", async () => {
  const sandbox = await makeSandbox({ SKIFF_MODEL: "test-model" });
  try {
    const result = await runSkiff(["run", "--reasoning-effort", "extreme", "hi"], sandbox);
    assertEquals(result.code, 2);
    assert(/reasoning-effort/.test(result.stderr) && /minimal/.test(result.stderr), result.stderr);
  } finally {
    await sandbox.cleanup();
  }
});

Deno.test("system prompt: a model whose calls may come as text is told the one form skiff reads; others get the default prompt", async () => {
  const turns = [{ text: "a" }, { text: "b" }, { text: "c" }];
  const config = { provider: { models: { "llama-3.1-8b": { textToolCalls: "off" } } } };
  await withDialect("llamacpp", turns, config, async (sandbox, server) => {
    assertEquals((await run(sandbox, ["--model", "qwen2.5-coder-7b-instruct", "hi"])).code, 0);
    assertEquals((await run(sandbox, ["hi"])).code, 0);
    assertEquals((await run(sandbox, ["--model", "llama-3.1-8b", "hi"])).code, 0);
    const [qwen, other, llamaOff] = server.requests.map(systemMessage);
    assert(qwen.includes('<tool_call>{"name": "<tool>"'), qwen);
    assert(!other.includes("<tool_call>") && !other.includes("as text"), other);
    assertEquals(qwen.replace(/\n- When you call a tool as text[^\n]*/, ""), other);
    assert(!llamaOff.includes("as text"), "text calls off: no note");
  });
});

Deno.test("a refusal of what was sent back is never taken for a refusal of the effort", () => {
  // DeepSeek's and OpenRouter's refusals name reasoning fields of the history: leaving the effort
  // out would not help, and the run must fail with their words (dialects_test.ts).
  assert(
    !refusesEffort(
      400,
      "Missing `reasoning_content` field in the assistant message at message index 2.",
    ),
  );
  assert(!refusesEffort(400, "Invalid reasoning_details: expected an array"));
  assert(!refusesEffort(500, "Unsupported parameter: 'reasoning_effort'"), "only a 400 or 422");
  assert(refusesEffort(400, "Unsupported parameter: 'reasoning_effort' is not supported"));
  assert(refusesEffort(400, "Thinking level MEDIUM is not supported for this model."));
  assert(refusesEffort(422, "reasoning: Extra inputs are not permitted"));
});
