/**
 * Each server's dialect end to end through `skiff run --json`: the test
 * server streams what the real one streams and refuses what the real one
 * refuses (tests/support/dialect_server.ts, with the vendors' docs), so a
 * tool session passes only when skiff sends back what that server needs.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import {
  type DialectTurn,
  startDialectServer,
  withDialectSandbox,
} from "../../support/dialect_server.ts";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox } from "../../support/cli.ts";

const READ_CALL: DialectTurn["call"] = { name: "read", arguments: { file_path: "notes.txt" } };
const THINKING = "The user asks about notes.txt.\nI should read it first.\nThen answer.";

const withDialect = withDialectSandbox;

type Event = Record<string, unknown>;

async function run(sandbox: Sandbox, args: string[]) {
  const result = await runSkiff(["run", "--json", ...args], sandbox);
  const events = parseJsonLines(result.stdout) as Event[];
  return { ...result, events, completed: events.find((e) => e.type === "session.completed") };
}

function reasoningOf(events: Event[]): string {
  return events.filter((event) => event.type === "reasoning.delta").map((event) => event.text)
    .join("");
}

async function exported(sandbox: Sandbox, sessionId: string) {
  const result = await runSkiff(["sessions", "export", sessionId], sandbox);
  assertEquals(result.code, 0, result.stderr);
  return JSON.parse(result.stdout) as {
    messages: { role: string; parts: Record<string, unknown>[] }[];
  };
}

Deno.test("the DeepSeek test server refuses a tool call sent back without its reasoning", async () => {
  const server = startDialectServer("deepseek", []);
  try {
    const response = await fetch(`${server.url}/chat/completions`, {
      method: "POST",
      body: JSON.stringify({
        model: "deepseek-v4-pro",
        messages: [
          { role: "user", content: "hi" },
          {
            role: "assistant",
            content: null,
            tool_calls: [{
              id: "c1",
              type: "function",
              function: { name: "read", arguments: "{}" },
            }],
          },
          { role: "tool", tool_call_id: "c1", content: "x" },
        ],
      }),
    });
    assertEquals(response.status, 400);
    assert((await response.text()).includes("Missing `reasoning_content` field"));
  } finally {
    await server.close();
  }
});

Deno.test("DeepSeek thinking mode: reasoning streams, is stored, goes back with the calls; cache and reasoning tokens counted", async () => {
  const turns = [{ reasoning: THINKING, call: READ_CALL }, {
    reasoning: "It says 42.",
    text: "The notes say the answer is 42.",
  }];
  await withDialect("deepseek", turns, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.answers, ["ok", "ok"], "the follow-up request is accepted");
    assertEquals(reasoningOf(result.events), THINKING + "It says 42.");
    const sent = (server.requests[1].messages as Record<string, unknown>[])
      .find((message) => message.role === "assistant")!;
    assertEquals(sent.reasoning_content, THINKING);
    const usage = result.completed!.usage as Record<string, number>;
    assertEquals(usage.reasoning_tokens, 14);
    assertEquals(usage.cached_input_tokens, 128);

    // Stored: the export has the reasoning, and a resumed session sends it back again.
    const sessionId = String(result.events[0].session_id);
    const { messages } = await exported(sandbox, sessionId);
    const parts = messages.flatMap((message) => message.parts);
    assert(parts.some((part) => part.type === "reasoning" && part.text === THINKING));
    const markdown = await runSkiff(["sessions", "export", sessionId, "--format", "md"], sandbox);
    assert(markdown.stdout.includes("## Assistant (reasoning)"), markdown.stdout);
    assert(markdown.stdout.includes("I should read it first."));
  });
});

Deno.test("DeepSeek: a session resumed in a new process still sends the stored reasoning", async () => {
  const turns = [
    { reasoning: THINKING, call: READ_CALL },
    { text: "42." },
    { text: "Still 42." },
  ];
  await withDialect("deepseek", turns, async (sandbox, server) => {
    const first = await run(sandbox, ["What do the notes say?"]);
    assertEquals(first.code, 0, first.stderr);
    const second = await run(sandbox, ["--continue", "And now?"]);
    assertEquals(second.code, 0, second.stderr + server.answers.join("\n"));
    assertEquals(server.answers, ["ok", "ok", "ok"]);
    const sent = (server.requests[2].messages as Record<string, unknown>[])
      .find((message) => message.role === "assistant" && message.tool_calls)!;
    assertEquals(sent.reasoning_content, THINKING);
  });
});

Deno.test("Gemini: each call's thought signature goes back with it", async () => {
  const turns = [{ call: READ_CALL }, { text: "It says 42." }];
  await withDialect("gemini", turns, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.answers, ["ok", "ok"]);
    const sent = (server.requests[1].messages as Record<string, unknown>[])
      .find((message) => message.role === "assistant")!;
    const call = (sent.tool_calls as Record<string, unknown>[])[0];
    assertEquals(call.extra_content, { google: { thought_signature: "c2lnbmF0dXJl1" } });
  });
});

Deno.test("Gemini: a session begun elsewhere continues (only the current turn's calls need signatures)", async () => {
  await withDialect("vllm", [{ call: READ_CALL }, { text: "42." }], async (sandbox) => {
    const first = await run(sandbox, ["What do the notes say?"]);
    assertEquals(first.code, 0, first.stderr);
    const gemini = startDialectServer("gemini", [{ call: READ_CALL }, { text: "Still 42." }]);
    try {
      const env = { OPENAI_BASE_URL: gemini.url };
      const second = await runSkiff(["run", "--json", "--continue", "Again?"], sandbox, { env });
      assertEquals(second.code, 0, second.stdout + gemini.answers.join("\n"));
      assertEquals(gemini.answers, ["ok", "ok"], "its own call of this turn went back signed");
    } finally {
      await gemini.close();
    }
  });
});

Deno.test("OpenRouter: reasoning_details go back unchanged; its cost is the one reported", async () => {
  const turns = [{ reasoning: THINKING, call: READ_CALL }, { text: "It says 42." }];
  await withDialect("openrouter", turns, async (sandbox, server) => {
    const result = await run(sandbox, ["What do the notes say?"]);
    assertEquals(result.code, 0, result.stderr + server.answers.join("\n"));
    assertEquals(server.answers, ["ok", "ok"]);
    assertEquals(reasoningOf(result.events), THINKING);
    const usage = result.completed!.usage as Record<string, number>;
    assertEquals(usage.cost_usd, 0.003, "OpenRouter's usage.cost, summed over two requests");
    assertEquals(usage.cached_input_tokens, 100);
    assertEquals(usage.reasoning_tokens, 7);
  });
});

Deno.test("a session begun on OpenRouter continues on DeepSeek: no OpenRouter fields, an empty reasoning_content", async () => {
  const router = startDialectServer("openrouter", [{ reasoning: THINKING, call: READ_CALL }, {
    text: "42.",
  }]);
  const deepseek = startDialectServer("deepseek", [{ text: "Still 42." }]);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: router.url, SKIFF_MODEL: "test-model" });
  try {
    await Deno.writeTextFile(`${sandbox.workspace}/notes.txt`, "the answer is 42\n");
    const first = await run(sandbox, ["What do the notes say?"]);
    assertEquals(first.code, 0, first.stderr);
    const env = { OPENAI_BASE_URL: deepseek.url };
    // Without DeepSeek's dialect, DeepSeek refuses the call that came from elsewhere.
    const refused = await runSkiff(["run", "--json", "--continue", "And now?"], sandbox, { env });
    const messages = deepseek.requests[0]?.messages as Record<string, unknown>[] | undefined;
    assert(messages, refused.stderr);
    const assistant = messages.find((message) => message.tool_calls)!;
    assertEquals(assistant.reasoning_details, undefined, "another provider's field is left out");
    assertEquals(assistant.reasoning, undefined);
    assertEquals(refused.code, 4, refused.stdout);
    assert(refused.stdout.includes("Missing `reasoning_content` field"), refused.stdout);
    // With it (a base URL at api.deepseek.com, or the setting), the session goes on.
    await Deno.writeTextFile(
      `${sandbox.configDir}/config.json`,
      JSON.stringify({ provider: { dialect: "deepseek" } }),
    );
    const accepted = await runSkiff(["run", "--json", "--continue", "And now?"], sandbox, { env });
    assertEquals(accepted.code, 0, accepted.stdout + deepseek.answers.join("\n"));
    const sent = (deepseek.requests.at(-1)!.messages as Record<string, unknown>[])
      .find((message) => message.tool_calls)!;
    assertEquals(sent.reasoning_content, "");
  } finally {
    await router.close();
    await deepseek.close();
    await sandbox.cleanup();
  }
});

Deno.test("OpenRouter's upstream refusal (error.metadata.raw) is in the failure message", async () => {
  // Begun on a server that keeps no reasoning blocks, continued on OpenRouter with a thinking model.
  await withDialect("vllm", [{ call: READ_CALL }, { text: "42." }], async (sandbox) => {
    const first = await run(sandbox, ["What do the notes say?"]);
    assertEquals(first.code, 0, first.stderr);
    const router = startDialectServer("openrouter", []);
    try {
      const env = { OPENAI_BASE_URL: router.url };
      const second = await runSkiff(["run", "--json", "--continue", "And now?"], sandbox, { env });
      assertEquals(second.code, 4, second.stdout);
      const error = parseJsonLines(second.stdout).find((event) => event.type === "error")!;
      const message = String(error.message);
      assert(message.includes("Provider returned error (Anthropic said:"), message);
      assert(message.includes("Expected `thinking` or `redacted_thinking`"), message);
      assertEquals(router.requests.length, 1, "a refusal is not retried");
    } finally {
      await router.close();
    }
  });
});

Deno.test("Mistral: a session begun elsewhere continues with ids and order Mistral accepts", async () => {
  await withDialect("vllm", [{ reasoning: "Read it.", call: READ_CALL }, { text: "42." }], async (
    sandbox,
  ) => {
    const first = await run(sandbox, ["What do the notes say?"]);
    assertEquals(first.code, 0, first.stderr);
    assertEquals(reasoningOf(first.events), "Read it.", "vLLM's delta.reasoning is read");
    // The run ends on its answer; a run cut after a tool result leaves tool → user.
    const mistral = startDialectServer("mistral", [{ call: READ_CALL }, { text: "Still 42." }]);
    try {
      await Deno.writeTextFile(
        `${sandbox.configDir}/config.json`,
        JSON.stringify({ provider: { dialect: "mistral" } }),
      );
      const env = { OPENAI_BASE_URL: mistral.url };
      const second = await runSkiff(["run", "--json", "--continue", "And now?"], sandbox, { env });
      assertEquals(second.code, 0, second.stdout + mistral.answers.join("\n"));
      assertEquals(mistral.answers, ["ok", "ok"]);
      const sent = mistral.requests[0].messages as Record<string, unknown>[];
      const call = (sent.find((message) => message.tool_calls)!.tool_calls as { id: string }[])[0];
      assert(/^[a-zA-Z0-9]{9}$/.test(call.id), call.id);
      assertEquals(sent.find((message) => message.role === "tool")!.tool_call_id, call.id);
      // The store keeps the original id.
      const { messages } = await exported(sandbox, String(first.events[0].session_id));
      const stored = messages.flatMap((message) => message.parts).find((part) =>
        part.type === "tool_call"
      )!;
      assertEquals(stored.call_id, "call_1_xyz");
      // Without the dialect the same history is refused, as Mistral refuses it.
      await Deno.writeTextFile(`${sandbox.configDir}/config.json`, "{}");
      const plain = await runSkiff(["run", "--json", "--continue", "Once more?"], sandbox, { env });
      assertEquals(plain.code, 4);
      assert(plain.stdout.includes("must be a-z, A-Z, 0-9, with a length of 9"), plain.stdout);
    } finally {
      await mistral.close();
    }
  });
});

Deno.test("Mistral: a user message right after a tool result gets an assistant turn between", async () => {
  // --max-turns 1 stops the run after the tool result: the stored history ends tool, then user.
  await withDialect("mistral", [{ call: READ_CALL }, { text: "42." }], async (sandbox, server) => {
    const first = await run(sandbox, ["--max-turns", "1", "What do the notes say?"]);
    assert(first.completed, first.stderr);
    const second = await run(sandbox, ["--continue", "Go on."]);
    assertEquals(second.code, 0, second.stdout + server.answers.join("\n"));
    const sent = server.requests.at(-1)!.messages as { role: string }[];
    const at = sent.findIndex((message) => message.role === "tool");
    assertEquals(sent[at + 1].role, "assistant");
    assertEquals(sent[at + 2].role, "user");
  }, { provider: { dialect: "mistral" } });
});

Deno.test("text mode sums the reasoning up on one line of stderr", async () => {
  await withDialect("vllm", [{ reasoning: THINKING, text: "Hello." }], async (sandbox) => {
    const result = await runSkiff(["run", "Say hello."], sandbox);
    assertEquals(result.code, 0, result.stderr);
    assertEquals(result.stdout.trim(), "Hello.");
    assert(result.stderr.includes("thought for 3 lines"), result.stderr);
    assert(!result.stdout.includes("read it first"));
  });
});

Deno.test("--json: a secret in the reasoning, split over streamed pieces, is still taken out", async () => {
  const token = `ghp_${"a1B2c3D4e5".repeat(3)}xYz987`;
  const reasoning = `The file holds ${token} which I must not repeat.`;
  await withDialect("vllm", [{ reasoning, text: "Done." }], async (sandbox) => {
    const result = await run(sandbox, ["Check the file."]);
    assertEquals(result.code, 0, result.stderr);
    // Joined again, as a reader of the lines would: the pieces must not add up to the token.
    assert(!reasoningOf(result.events).includes(token), "the token never reaches stdout");
    assert(reasoningOf(result.events).includes("which I must not repeat."));
  });
});

for (
  const [dialect, field] of [
    ["vllm", "reasoning"],
    ["ollama", "reasoning"],
    ["llamacpp", "reasoning_content"],
    ["lmstudio", "reasoning_content"],
  ] as const
) {
  Deno.test(`${dialect}: reasoning in delta.${field} is shown, stored and goes back under its name`, async () => {
    await withDialect(dialect, [{ reasoning: THINKING, call: READ_CALL }, { text: "42." }], async (
      sandbox,
      server,
    ) => {
      const result = await run(sandbox, ["What do the notes say?"]);
      assertEquals(result.code, 0, result.stderr);
      assertEquals(server.answers, ["ok", "ok"]);
      assertEquals(reasoningOf(result.events), THINKING);
      assertEquals((result.completed!.usage as Record<string, number>).reasoning_tokens, 7);
      const sent = (server.requests[1].messages as Record<string, unknown>[])
        .find((message) => message.tool_calls)!;
      assertEquals(sent[field], THINKING);
      const { messages } = await exported(sandbox, String(result.events[0].session_id));
      assert(messages.some((message) => message.parts.some((part) => part.type === "reasoning")));
    });
  });
}
