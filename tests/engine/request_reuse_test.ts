/**
 * A turn's request is built from pieces made once (src/provider/chat/request_body.ts):
 * a message is serialised once however many requests carry it, what context
 * management changes is sent as it is now, and a spilled tool output is held
 * by nothing the session keeps once its turn is over (only its spill file).
 */
import { assert, assertEquals } from "../support/assert.ts";
import { startMockServer } from "../support/mock_server.ts";
import { createOpenAIProvider } from "../../src/provider/openai_provider.ts";
import type { ChatMessage, ChatProvider } from "../../src/provider/types.ts";
import { PRUNED_MARK, pruneToolOutputs } from "../../src/engine/context/prune.ts";
import { ContextMeter } from "../../src/engine/context/size.ts";
import { runLoop } from "../../src/engine/loop/loop.ts";
import { truncateOutput } from "../../src/tools/truncate.ts";
import type { ToolContext } from "../../src/tools/tool.ts";
import { fakeReadTool } from "../support/read_session.ts";

type Wire = { role: string; content: string | null; tool_call_id?: string };

function provider(url: string): ChatProvider {
  return createOpenAIProvider({ baseURL: url, maxRetries: 0 });
}

const request = (messages: ChatMessage[]) => ({ model: "mock-model", messages, tools: [] });

/** A tool result that counts how often it is turned into JSON. */
function countedResult(id: string, content: string) {
  const counter = { times: 0 };
  const message = {
    role: "tool" as const,
    tool_call_id: id,
    content,
    toJSON() {
      counter.times++;
      return { role: "tool", tool_call_id: id, content };
    },
  };
  return { message, counter };
}

Deno.test("a message is serialised once however many requests carry it", async () => {
  const mock = startMockServer([{ text: "one" }, { text: "two" }, { text: "three" }]);
  try {
    const model = provider(mock.url);
    const output = "x".repeat(20_000);
    const { message, counter } = countedResult("c1", output);
    const history: ChatMessage[] = [
      { role: "user", content: "read it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", name: "read", arguments: "{}" }],
      },
      message,
    ];
    for (const more of ["and again", "once more"]) {
      const answer = await model.stream(request(history), {});
      history.push({ role: "assistant", content: answer.text }, { role: "user", content: more });
    }
    await model.stream(request(history), {});

    assertEquals(mock.requests.length, 3);
    for (const body of mock.requests) {
      const sent = (body.messages as Wire[]).find((wire) => wire.tool_call_id === "c1");
      assertEquals(sent?.content, output);
    }
    assertEquals(counter.times, 1, "the same tool result was serialised for every request");
  } finally {
    await mock.close();
  }
});

Deno.test("a result pruned by context management is sent as its note, not as the cached output", async () => {
  const mock = startMockServer([{ text: "one" }, { text: "two" }]);
  try {
    const model = provider(mock.url);
    const output = Array.from({ length: 500 }, (_, line) => `line ${line} of a long log`).join(
      "\n",
    );
    const history: ChatMessage[] = [
      { role: "user", content: "read it" },
      {
        role: "assistant",
        content: null,
        tool_calls: [{ id: "c1", name: "read", arguments: "{}" }],
      },
      { role: "tool", tool_call_id: "c1", content: output },
      { role: "assistant", content: "It is a log." },
      { role: "user", content: "go on" },
    ];
    await model.stream(request(history), {});
    const { notes } = pruneToolOutputs(history, new ContextMeter(), { goal: 0 });
    assertEquals(notes.length, 1);
    await model.stream(request(history), {});

    const resultIn = (index: number) =>
      (mock.requests[index].messages as Wire[]).find((wire) => wire.tool_call_id === "c1")!;
    assertEquals(resultIn(0).content, output);
    assert(resultIn(1).content!.startsWith(PRUNED_MARK), resultIn(1).content!.slice(0, 80));
    assertEquals(resultIn(1).content, notes[0].note);
  } finally {
    await mock.close();
  }
});

Deno.test("a message changed in place is sent as it is now", async () => {
  const mock = startMockServer([{ text: "one" }, { text: "two" }]);
  try {
    const model = provider(mock.url);
    const answer: ChatMessage = { role: "assistant", content: "first words" };
    const history: ChatMessage[] = [{ role: "user", content: "hi" }, answer];
    await model.stream(request([...history, { role: "user", content: "and?" }]), {});
    answer.content = "other words";
    await model.stream(request([...history, { role: "user", content: "and?" }]), {});
    const sent = mock.requests.map((body) => (body.messages as Wire[])[1].content);
    assertEquals(sent, ["first words", "other words"]);
  } finally {
    await mock.close();
  }
});

Deno.test("through the loop, pruned results reach the endpoint as notes, each request a valid body", async () => {
  const turns = 12;
  const script = Array.from({ length: turns }, (_, step) => ({
    toolCalls: [{ name: "read", id: `c${step}`, arguments: { path: `f${step}.ts` } }],
  }));
  const mock = startMockServer([...script, { text: "All done." }]);
  try {
    const outcome = await runLoop({
      provider: provider(mock.url),
      tools: [fakeReadTool(8_000)],
      schemas: [{ name: "read", description: "read a file", parameters: { type: "object" } }],
      gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
      recorder: {
        userMessage: () => {},
        assistantMessage: () => {},
        toolResult: () => {},
        stepUsage: () => {},
      },
      emit: () => {},
      context: () => ({}) as ToolContext,
      parseInput: (_tool, raw) => JSON.parse(raw),
      truncate: (output) => Promise.resolve(output),
    }, {
      model: "mock-model",
      systemPrompt: "You are a coding agent.",
      history: [],
      prompt: "Read the files.",
      maxOutputTokens: 1_024,
      modelLimits: { context: 16_384 },
      signal: new AbortController().signal,
    });
    assertEquals(outcome.kind, "completed");
    const results = (index: number) =>
      (mock.requests[index].messages as Wire[]).filter((wire) => wire.role === "tool");
    const last = results(mock.requests.length - 1);
    assertEquals(last.length, turns);
    const pruned = last.filter((wire) => wire.content!.startsWith(PRUNED_MARK));
    assert(pruned.length > 0, "no result was pruned in a 16k window");
    // A result sent whole earlier went as its note once pruned: the cached piece was not reused.
    const first = pruned[0].tool_call_id!;
    const earlier = mock.requests.map((body) =>
      (body.messages as Wire[]).find((wire) => wire.tool_call_id === first)?.content
    ).filter((content) => content !== undefined);
    assert(!earlier[0]!.startsWith(PRUNED_MARK), "the result was never sent whole");
    assert(earlier.at(-1)!.startsWith(PRUNED_MARK));
  } finally {
    await mock.close();
  }
});

Deno.test("a spilled output is held by no message, part or event once its turn is over: only its spill file has it", async () => {
  const dataDir = await Deno.makeTempDir({ prefix: "skiff-retain-" });
  const mock = startMockServer([
    { toolCalls: [{ name: "dump", id: "big", arguments: {} }] },
    { text: "Seen." },
  ]);
  try {
    const middle = "MIDDLE-OF-THE-OUTPUT";
    const whole = "a".repeat(100_000) + middle + "b".repeat(100_000);
    const kept: unknown[] = [];
    const dump = {
      name: "dump",
      description: "print a lot",
      parameters: { parse: () => ({}) },
      declare: () => ({ key: "read", patterns: ["*"] }),
      execute: () => Promise.resolve({ output: whole }),
    };
    const history: ChatMessage[] = [];
    const outcome = await runLoop({
      provider: provider(mock.url),
      tools: [dump as never],
      schemas: [{ name: "dump", description: "print a lot", parameters: { type: "object" } }],
      gate: { check: () => Promise.resolve({ allowed: true }), denials: () => [] },
      recorder: {
        userMessage: (text) => void kept.push(text),
        assistantMessage: (text, calls) => void kept.push(text, calls),
        toolResult: (part) => void kept.push(part),
        stepUsage: () => {},
      },
      emit: (type, body) => void kept.push({ type, body }),
      context: () => ({}) as ToolContext,
      parseInput: () => ({}),
      truncate: (output, callId) => truncateOutput(output, { callId, sessionId: "s1", dataDir }),
    }, {
      model: "mock-model",
      systemPrompt: "You are a coding agent.",
      history,
      prompt: "Dump it.",
      signal: new AbortController().signal,
    });
    assertEquals(outcome.kind, "completed");
    const everything = JSON.stringify(kept) + JSON.stringify(mock.requests);
    assert(!everything.includes(middle), "the whole output was kept beside its spill file");
    assert(everything.includes("characters truncated; full output:"), "no truncation notice");
    const spilled = await Deno.readTextFile(`${dataDir}/tool-output/s1/big.txt`);
    assertEquals(spilled, whole);
  } finally {
    await mock.close();
    await Deno.remove(dataDir, { recursive: true });
  }
});
