/**
 * The Responses API end to end through `skiff run --json`, against a server
 * that streams and refuses as OpenAI's does (tests/support/responses_server.ts):
 * a tool call round trip whose encrypted reasoning goes back with the call,
 * the switch from Chat Completions when the server says the model is served
 * only on /responses, and that switch not taken when /responses does not
 * serve the model either.
 */
import { deepStrictEqual as assertEquals, ok as assert } from "node:assert/strict";
import * as path from "node:path";
import { makeSandbox, parseJsonLines, runSkiff, type Sandbox } from "../../support/cli.ts";
import {
  type ResponsesServer,
  type ResponsesServerOptions,
  type ResponsesTurn,
  startResponsesServer,
} from "../../support/responses_server.ts";

async function withResponsesServer(
  script: ResponsesTurn[],
  config: Record<string, unknown>,
  work: (sandbox: Sandbox, server: ResponsesServer) => Promise<void>,
  options: ResponsesServerOptions = {},
): Promise<void> {
  const server = startResponsesServer(script, options);
  const sandbox = await makeSandbox({ OPENAI_BASE_URL: server.url, OPENAI_API_KEY: "sk-test-key" });
  try {
    await Deno.writeTextFile(path.join(sandbox.configDir, "config.json"), JSON.stringify(config));
    await work(sandbox, server);
  } finally {
    await server.close();
    await sandbox.cleanup();
  }
}

const ROUND_TRIP: ResponsesTurn[] = [
  {
    reasoning: "The user wants the note; reading notes.txt first.",
    toolCalls: [{ name: "read", arguments: { file_path: "notes.txt" } }],
  },
  { reasoning: "The file says the port.", text: "The note says: port 8080." },
];

type Item = Record<string, unknown>;

function inputOf(request: Record<string, unknown>): Item[] {
  return request.input as Item[];
}

/** The checks every round trip makes of what the server was sent and what skiff reported. */
function assertRoundTrip(server: ResponsesServer, stdout: string, refusals: string[] = []): void {
  assertEquals(server.refusals, refusals, "the server accepted every request to /responses");
  assertEquals(server.requests.length, 2);
  const [first, second] = server.requests;
  assertEquals(first.store, false);
  assertEquals(first.stream, true);
  assertEquals(first.include, ["reasoning.encrypted_content"]);
  assertEquals(
    (first.tools as Item[]).some((tool) => tool.type === "function" && tool.name === "read"),
    true,
  );
  assert(
    typeof first.instructions === "string" && first.instructions.length > 0,
    "system prompt as instructions",
  );

  const items = inputOf(second);
  const types = items.map((item) => item.type ?? item.role);
  assertEquals(types, ["user", "reasoning", "function_call", "function_call_output"]);
  const reasoning = items[1];
  assert(
    String(reasoning.encrypted_content).startsWith("gAAAA"),
    "encrypted reasoning passed back",
  );
  const call = items[2];
  assertEquals(call.name, "read");
  assertEquals(JSON.parse(String(call.arguments)), { file_path: "notes.txt" });
  assertEquals(items[3].call_id, call.call_id);
  assert(
    String(items[3].output).includes("port 8080"),
    `the tool's output went back: ${items[3].output}`,
  );

  const events = parseJsonLines(stdout);
  const completed = events.at(-1)!;
  assertEquals(completed.type, "session.completed");
  const data = (completed.data ?? completed) as Record<string, unknown>;
  assertEquals(data.text, "The note says: port 8080.");
  const usage = data.usage as Record<string, number>;
  assertEquals(usage.input_tokens, 2400);
  assertEquals(usage.output_tokens, 600);
  assertEquals(usage.cached_input_tokens, 2048);
}

Deno.test('wire "responses": a tool call round trip sends the encrypted reasoning back', async () => {
  await withResponsesServer(
    ROUND_TRIP,
    { provider: { model: "gpt-5-codex", wire: "responses" } },
    async (sandbox, server) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "port 8080\n");
      const result = await runSkiff(["run", "--json", "What does notes.txt say?"], sandbox);
      assertEquals(result.code, 0, result.stderr + result.stdout);
      assertRoundTrip(server, result.stdout);
      assertEquals(
        server.paths,
        ["/v1/responses", "/v1/responses"],
        "never asked Chat Completions",
      );
      assert(!result.stdout.includes("sk-test-key") && !result.stderr.includes("sk-test-key"));
    },
  );
});

Deno.test("a per-model wire in provider.models is used for that model", async () => {
  await withResponsesServer(
    [{ text: "hello" }],
    {
      provider: { model: "gpt-5.1-codex-mini", models: { "gpt-5*-codex*": { wire: "responses" } } },
    },
    async (sandbox, server) => {
      const result = await runSkiff(["run", "--json", "hi"], sandbox);
      assertEquals(result.code, 0, result.stderr + result.stdout);
      assertEquals(server.paths, ["/v1/responses"]);
    },
  );
});

Deno.test("a model served only on /responses: skiff switches once, says so, and the round trip works", async () => {
  await withResponsesServer(
    ROUND_TRIP,
    { provider: { model: "gpt-5-codex" } },
    async (sandbox, server) => {
      await Deno.writeTextFile(path.join(sandbox.workspace, "notes.txt"), "port 8080\n");
      const result = await runSkiff(["run", "--json", "What does notes.txt say?"], sandbox);
      assertEquals(result.code, 0, result.stderr + result.stdout);
      assertRoundTrip(server, result.stdout, [
        "404 This model is only supported in v1/responses and not in v1/chat/completions.",
      ]);
      // Refused once on Chat Completions, then only /responses: the switch is remembered.
      assertEquals(server.paths, ["/v1/chat/completions", "/v1/responses", "/v1/responses"]);
      const notices = parseJsonLines(result.stdout).filter((event) =>
        event.type === "provider.retry"
      );
      assertEquals(notices.length, 1, JSON.stringify(notices));
      assert(
        JSON.stringify(notices[0]).includes("asking the Responses API"),
        JSON.stringify(notices[0]),
      );
    },
  );
});

Deno.test("a 404 that /responses repeats is reported as the first refusal, naming the base URL", async () => {
  await withResponsesServer(
    [],
    { provider: { model: "no-such-model" } },
    async (sandbox, server) => {
      const result = await runSkiff(["run", "--json", "hi"], sandbox);
      assertEquals(result.code, 4, result.stderr + result.stdout);
      assertEquals(server.paths, ["/v1/chat/completions", "/v1/responses"]);
      const text = result.stdout + result.stderr;
      assert(text.includes("does not exist") && text.includes("base URL"), text);
    },
    { knownModel: () => false },
  );
});

Deno.test("the test server refuses a follow-up whose call lost its reasoning, as OpenAI does", async () => {
  const server = startResponsesServer([{
    reasoning: "think",
    toolCalls: [{ name: "read", arguments: {} }],
  }]);
  try {
    const post = (body: unknown) =>
      fetch(`${server.url}/responses`, { method: "POST", body: JSON.stringify(body) });
    const first = await post({
      model: "m",
      input: [{ role: "user", content: "hi" }],
      store: false,
      stream: true,
    });
    const text = await first.text();
    const done = text.split("\n").filter((line) => line.startsWith("data: ")).map((line) =>
      JSON.parse(line.slice(6))
    )
      .find((event) => event.type === "response.completed");
    const call = done.response.output.find((item: Item) => item.type === "function_call");
    const followUp = await post({
      model: "m",
      store: false,
      input: [
        { role: "user", content: "hi" },
        { type: "function_call", call_id: call.call_id, name: "read", arguments: "{}" },
        { type: "function_call_output", call_id: call.call_id, output: "x" },
      ],
    });
    assertEquals(followUp.status, 400);
    assert((await followUp.text()).includes("without its required 'reasoning' item"));
  } finally {
    await server.close();
  }
});
