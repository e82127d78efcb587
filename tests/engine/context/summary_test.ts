import { assert, assertEquals } from "../../support/assert.ts";
import { HANDOFF_MARK, summarise, SUMMARY_PROMPT } from "../../../src/engine/context/summary.ts";
import { ContextKeeper } from "../../../src/engine/context/keeper.ts";
import { ContextMeter } from "../../../src/engine/context/size.ts";
import {
  type ChatMessage,
  type ChatProvider,
  type ChatRequest,
  ProviderError,
} from "../../../src/provider/types.ts";
import { emptyUsage, type EventBodies } from "../../../src/contracts/events.ts";

const TASK = "Fix the flaky test in tests/net_test.ts without adding sleeps.";

function conversation(turns: number, body = 300): ChatMessage[] {
  const history: ChatMessage[] = [
    { role: "system", content: "system prompt" },
    { role: "user", content: TASK },
  ];
  for (let n = 1; n <= turns; n++) {
    history.push({
      role: "assistant",
      content: `Looking at step ${n}. `.repeat(20),
      tool_calls: [{ id: `c${n}`, name: "read", arguments: `{"path":"f${n}.ts"}` }],
    });
    history.push({ role: "tool", tool_call_id: `c${n}`, content: `line\n`.repeat(body) });
  }
  return history;
}

function answering(text: string | Error, asked: ChatRequest[] = []): ChatProvider {
  return {
    baseURL: "http://fake",
    stream: (request) => {
      asked.push(request);
      return text instanceof Error
        ? Promise.reject(text)
        : Promise.resolve({ text, toolCalls: [], finishReason: "stop", usage: emptyUsage() });
    },
  };
}

const deps = (provider: ChatProvider) => ({
  provider,
  model: "m",
  meter: new ContextMeter(),
  requestBudget: 100_000,
  maxOutputTokens: 1_000,
});

Deno.test("the summary replaces the older part, keeps the recent turns verbatim, and puts back the task the model dropped", async () => {
  const history = conversation(6);
  const asked: ChatRequest[] = [];
  const outcome = await summarise(history, deps(answering("## Task\nfix a test", asked)));
  assert(outcome.ok, JSON.stringify(outcome));
  assertEquals(asked[0].messages[0].content, SUMMARY_PROMPT);
  assertEquals(asked[0].tools, []);
  assert(outcome.summary.includes(TASK));
  assertEquals(outcome.history[0], history[0]);
  assert((outcome.history[1].content as string).startsWith(HANDOFF_MARK));
  assertEquals(outcome.history.slice(2), history.slice(-4)); // the last two turns, verbatim
  assertEquals(outcome.replaced, history.length - 1 - 4);
});

Deno.test("an empty, too long or failed summary is refused with its reason", async () => {
  const history = conversation(6);
  const empty = await summarise(history, deps(answering("  ")));
  assert(!empty.ok && empty.reason.includes("empty"));
  const long = await summarise(history, deps(answering("word ".repeat(20_000))));
  assert(!long.ok && long.reason.includes("not shorter"), JSON.stringify(long));
  const failed = await summarise(history, deps(answering(new ProviderError("server down", 500))));
  assert(!failed.ok && failed.reason.includes("server down"));
});

Deno.test("a failed summary falls back to pruning, says so, and loses no message", async () => {
  const history = conversation(12, 2_000);
  const length = history.length;
  const events: EventBodies["context.compacted"][] = [];
  const warnings: string[] = [];
  const keeper = new ContextKeeper({
    provider: answering(""),
    model: "m",
    limits: { context: 4_000 },
    maxOutputTokens: 500,
    schemas: [],
    compacted: (event) => events.push(event),
    warn: (message) => warnings.push(message),
    spent: () => {},
  });
  const ready = await keeper.prepare(history, 7);
  assert(ready.ok, JSON.stringify(ready));
  assertEquals(history.length, length);
  assertEquals(history[1].content, TASK);
  assertEquals(events.length, 1);
  assertEquals(events[0].kind, "prune");
  assert(events[0].fallback!.includes("empty summary"), events[0].fallback);
  assert(events[0].tokens_after <= keeper.budget.threshold);
  assertEquals(warnings.length, 1);
  assert(warnings[0].includes("the summary was not used"), warnings[0]);
});

Deno.test("a second handoff still holds the user's first words, which only the first handoff had", async () => {
  const history = conversation(12, 2_000);
  const events: EventBodies["context.compacted"][] = [];
  const keeper = new ContextKeeper({
    provider: answering("## Task\nsomething about tests"),
    model: "m",
    limits: { context: 6_000 },
    maxOutputTokens: 500,
    schemas: [],
    compacted: (event) => events.push(event),
    warn: () => {},
    spent: () => {},
  });
  assert((await keeper.prepare(history, 1)).ok);
  for (let n = 13; n <= 20; n++) {
    history.push({
      role: "assistant",
      content: `Looking at step ${n}. `.repeat(40),
      tool_calls: [{ id: `c${n}`, name: "read", arguments: "{}" }],
    });
    history.push({ role: "tool", tool_call_id: `c${n}`, content: "line\n".repeat(2_000) });
    assert((await keeper.prepare(history, n)).ok);
  }
  const summaries = events.filter((event) => event.kind === "summary");
  assert(summaries.length >= 2, JSON.stringify(events.map((event) => event.kind)));
  assert(summaries.every((event) => event.summary!.includes(TASK)));
  assert((history[1].content as string).includes(TASK));
});
