/**
 * Long sessions against a small window, end to end through the loop: no
 * request ever exceeds the window, old tool outputs are pruned first, the
 * handoff summary is asked for only when pruning cannot fit, and it keeps
 * the user's task verbatim; compaction off ends the run as a limit with a
 * clear message; an endpoint that still says "context length exceeded" gets
 * one compaction and one retry.
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startMockServer } from "../support/mock_server.ts";
import { bigOutput, fakeReadTool } from "../support/read_session.ts";
import { type LoopDeps, type LoopOptions, runLoop } from "../../src/engine/loop/loop.ts";
import {
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  type ChatResponse,
  ProviderError,
} from "../../src/provider/types.ts";
import { createOpenAIProvider } from "../../src/provider/openai_provider.ts";
import type { EventBodies, EventType } from "../../src/contracts/events.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { HANDOFF_MARK, SUMMARY_PROMPT } from "../../src/engine/context/summary.ts";

const WINDOW = 8_192;
const REPLY = 1_024;
const TASK = "Refactor the parser in src/parse.ts so that every error names the line, " +
  "keep the public API unchanged, and make `deno task test` pass.";
/** Tokens as the endpoint counts them: about four characters of the JSON body a token. */
function countTokens(request: ChatRequest): number {
  return Math.ceil(JSON.stringify({ m: request.messages, t: request.tools }).length / 4);
}

interface Seen {
  request: ChatRequest;
  tokens: number;
  summary: boolean;
}

/**
 * A model that reads a file per turn for `turns` turns, then answers; it
 * refuses (as OpenAI does) any request whose prompt plus reply room passes
 * `window`, and writes a handoff when asked with the summary prompt, leaving
 * out the user's task so the check has to put it back.
 */
function scriptedModel(turns: number, window: number, seen: Seen[]): ChatProvider {
  let step = 0;
  return {
    baseURL: "http://fake",
    stream(request): Promise<ChatResponse> {
      const tokens = countTokens(request);
      const summary = request.messages[0].content === SUMMARY_PROMPT;
      seen.push({ request, tokens, summary });
      if (tokens + (request.maxOutputTokens ?? 0) > window) {
        return Promise.reject(
          new ProviderError(
            `The model endpoint http://fake refused the request with 400 Bad Request: This ` +
              `model's maximum context length is ${window} tokens. However, your messages ` +
              `resulted in ${tokens} tokens. Please reduce the length of the messages.`,
            400,
          ),
        );
      }
      const usage = { input_tokens: tokens, output_tokens: 50, total_tokens: tokens + 50 };
      if (summary) {
        const text = "## Task\nMake the parser errors better.\n## Files\n- src/parse.ts read\n" +
          "## Next steps\n- keep reading files";
        return Promise.resolve({ text, toolCalls: [], finishReason: "stop", usage });
      }
      step++;
      if (step > turns) {
        return Promise.resolve({ text: "All done.", toolCalls: [], finishReason: "stop", usage });
      }
      return Promise.resolve({
        text: `Step ${step}: reading the next file to see how errors are raised there. `.repeat(6),
        toolCalls: [{ id: `c${step}`, name: "read", arguments: `{"path":"src/f${step}.ts"}` }],
        finishReason: "tool_calls",
        usage,
      });
    },
  };
}

const read = fakeReadTool();

type Emitted = { type: EventType; body: unknown };

function deps(provider: ChatProvider, events: Emitted[]): LoopDeps {
  return {
    provider,
    tools: [read],
    schemas: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
    gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
    recorder: {
      userMessage: () => {},
      assistantMessage: () => {},
      toolResult: () => {},
      stepUsage: () => {},
    },
    emit: (type, body) => events.push({ type, body }),
    context: () => ({}) as ToolContext,
    parseInput: (_tool, raw) => JSON.parse(raw),
    truncate: (output) => Promise.resolve(output),
  };
}

function options(overrides: Partial<LoopOptions> = {}): LoopOptions {
  return {
    model: "small-model",
    systemPrompt: "You are a coding agent.",
    history: [],
    prompt: TASK,
    maxOutputTokens: REPLY,
    modelLimits: { context: WINDOW },
    signal: new AbortController().signal,
    ...overrides,
  };
}

const compactions = (events: Emitted[]) =>
  events.filter((event) => event.type === "context.compacted").map((event) =>
    event.body as EventBodies["context.compacted"]
  );

Deno.test("40 turns of 20 KB outputs in an 8k window: never over, pruned first, summarised when pruning cannot fit, task kept verbatim", async () => {
  const seen: Seen[] = [];
  const events: Emitted[] = [];
  const outcome = await runLoop(deps(scriptedModel(40, WINDOW, seen), events), options());

  assertEquals(outcome.kind, "completed");
  assertEquals(outcome.text, "All done.");
  const largest = Math.max(...seen.map((request) => request.tokens));
  assert(largest + REPLY <= WINDOW, `a request held ${largest} tokens (+${REPLY} reply)`);
  const done = compactions(events);
  assert(done.some((event) => event.kind === "prune"), "no prune happened");
  const summaries = done.filter((event) => event.kind === "summary");
  assert(summaries.length >= 1, `no summary: ${JSON.stringify(done.map((d) => d.kind))}`);
  // Prune came first: the first compaction pruned and needed no summary.
  assertEquals(done[0].kind, "prune");
  // Every summary request came after prunes could no longer fit.
  assertEquals(seen.filter((request) => request.summary).length, summaries.length);
  for (const event of summaries) assert(event.summary!.includes(TASK), "task not verbatim");
  const last = seen.at(-1)!.request.messages;
  const handoff = last.find((message) =>
    message.role === "user" && message.content.startsWith(HANDOFF_MARK)
  ) as Extract<ChatMessage, { role: "user" }>;
  assert(handoff, "the last request carries no handoff");
  assert(handoff.content.includes(TASK), "the handoff sent lost the user's task");
  // The newest output, which the model answered last, went verbatim.
  const lastTool = last.findLast((message) => message.role === "tool")!;
  assertEquals(lastTool.content, bigOutput(40));
  assert(
    done.every((event) => event.tokens_after < event.tokens_before && event.window === WINDOW),
  );
  assertEquals(events.filter((event) => event.type === "warning"), []);
});

Deno.test("compaction off: a full window ends the run as a limit that says what to do, never a provider error", async () => {
  const seen: Seen[] = [];
  const events: Emitted[] = [];
  const outcome = await runLoop(
    deps(scriptedModel(40, WINDOW, seen), events),
    options({ compaction: { auto: false, threshold: 0.8 } }),
  );
  assertEquals(outcome.kind, "limit");
  if (outcome.kind !== "limit") return;
  assert(outcome.reason.includes("fills the model's context window"), outcome.reason);
  assert(new RegExp(`\\(\\d+ of ${WINDOW} tokens`).test(outcome.reason), outcome.reason);
  assert(outcome.reason.includes('"compaction": {"auto": false}'), outcome.reason);
  assert(outcome.reason.includes("new session"), outcome.reason);
  assertEquals(compactions(events), []);
  // Stopped before sending, not by the endpoint's refusal.
  assert(seen.every((request) => request.tokens + REPLY <= WINDOW));
});

Deno.test("an endpoint that says 'context length exceeded' gets one compaction and a retry that succeeds", async () => {
  const seen: Seen[] = [];
  const events: Emitted[] = [];
  // skiff believes the window is 128k; the server runs the model with 8k.
  const outcome = await runLoop(
    deps(scriptedModel(3, WINDOW, seen), events),
    options({ modelLimits: { context: 128_000 } }),
  );
  assertEquals(outcome.kind, "completed");
  const refused = seen.filter((request) => request.tokens + REPLY > WINDOW);
  assertEquals(refused.length, 1);
  const done = compactions(events);
  // One compaction for the refusal; later ones come in time, from our own count.
  assertEquals(done.filter((event) => event.trigger === "overflow").length, 1);
  assertEquals(done[0].trigger, "overflow");
  assertEquals(done[0].window, WINDOW, "the window the server named is used from then on");
  const retried = seen[seen.indexOf(refused[0]) + 1];
  assert(retried.tokens + REPLY <= WINDOW, "the retry fits");
});

Deno.test("compaction off and the endpoint refuses as too long: a limit, not a provider error", async () => {
  const outcome = await runLoop(
    deps(scriptedModel(3, WINDOW, []), []),
    options({ modelLimits: { context: 128_000 }, compaction: { auto: false, threshold: 0.8 } }),
  );
  assertEquals(outcome.kind, "limit");
  if (outcome.kind === "limit") {
    assert(outcome.reason.includes(`of ${WINDOW} tokens`), outcome.reason);
  }
});

Deno.test("through the real client: an overflow named only by its code (a generic message) is compacted, not fatal", async () => {
  const mock = startMockServer([
    { toolCalls: [{ name: "read", arguments: { path: "src/f1.ts" }, id: "c1" }] },
    { toolCalls: [{ name: "read", arguments: { path: "src/f2.ts" }, id: "c2" }] },
    {
      status: 400,
      body: { error: { message: "Invalid request.", code: "context_length_exceeded" } },
    },
    { text: "All done." },
  ]);
  try {
    const events: Emitted[] = [];
    const outcome = await runLoop(
      deps(createOpenAIProvider({ baseURL: mock.url, maxRetries: 0 }), events),
      options({ modelLimits: { context: 128_000 } }),
    );
    assertEquals(outcome.kind, "completed");
    assertEquals(mock.requests.length, 4);
    assertEquals(compactions(events).map((event) => event.trigger), ["overflow"]);
  } finally {
    await mock.close();
  }
});

Deno.test("through the real client: a 400 'context_length_exceeded' from the endpoint is compacted and retried", async () => {
  const mock = startMockServer([
    { toolCalls: [{ name: "read", arguments: { path: "src/f1.ts" }, id: "c1" }] },
    { toolCalls: [{ name: "read", arguments: { path: "src/f2.ts" }, id: "c2" }] },
    {
      status: 400,
      body: {
        error: {
          message: "This model's maximum context length is 8192 tokens. However, your " +
            "messages resulted in 10240 tokens. Please reduce the length of the messages.",
          type: "invalid_request_error",
          code: "context_length_exceeded",
        },
      },
    },
    { text: "All done." },
  ]);
  try {
    const events: Emitted[] = [];
    const outcome = await runLoop(
      deps(createOpenAIProvider({ baseURL: mock.url, maxRetries: 0 }), events),
      options({ modelLimits: { context: 128_000 } }),
    );
    assertEquals(outcome.kind, "completed");
    assertEquals(mock.requests.length, 4);
    const done = compactions(events);
    assertEquals(done.map((event) => [event.trigger, event.kind]), [["overflow", "prune"]]);
    // Pruning was enough: no summary was tried, so none failed.
    assertEquals(done[0].fallback, undefined);
    assertEquals(events.filter((event) => event.type === "warning"), []);
    const retry = JSON.stringify(mock.requests[3].messages);
    assert(retry.length < JSON.stringify(mock.requests[2].messages).length);
    assert(retry.includes("output pruned to save context"), "the retry was not compacted");
  } finally {
    await mock.close();
  }
});
