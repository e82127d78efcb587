/**
 * Context management end to end through `skiff run` against the mock: the
 * config's `compaction` and `models` keys reach the loop, a compaction is
 * recorded in the store as its own part, `--continue` resumes from the
 * compacted state, and the export still holds every original message with a
 * marker where the compaction happened.
 */
import { assert, assertEquals, assertStringIncludes } from "../support/assert.ts";
import { parseJsonLines, runSkiff, withMockSandbox } from "../support/cli.ts";
import type { MockTurn } from "../support/mock_server.ts";
import { HANDOFF_MARK, SUMMARY_PROMPT } from "../../src/engine/context/summary.ts";
import { compactionLine } from "../../src/ui/text.ts";

const TASK = "Tidy the notes module: keep every public name, and list what you changed.";

/** About 4,000 characters of prose: each turn adds about a thousand tokens. */
const prose = (step: number) =>
  `Step ${step}: looked at the todo list again and thought about the notes module. `.repeat(50);

const longTurns = (count: number): MockTurn[] =>
  Array.from({ length: count }, (_, index) => ({
    text: prose(index + 1),
    toolCalls: [{
      name: "glob",
      arguments: { pattern: `notes_${index + 1}/*.md` },
      id: `call_${index + 1}`,
    }],
  }));

type Message = { role: string; content: string | null };
const messagesOf = (request: Record<string, unknown>) => request.messages as Message[];
const isSummaryRequest = (request: Record<string, unknown>) =>
  messagesOf(request)[0].content === SUMMARY_PROMPT;

async function writeConfig(configDir: string, config: unknown): Promise<void> {
  await Deno.writeTextFile(`${configDir}/config.json`, JSON.stringify(config));
}

Deno.test('"compaction": {"auto": false}: a full window ends with exit 5 and says so, never a provider error', async () => {
  await withMockSandbox([...longTurns(12), { text: "Done." }], async (sandbox, mock) => {
    await writeConfig(sandbox.configDir, {
      compaction: { auto: false },
      models: { "mock-model": { context: 6000, output: 1000 } },
    });
    const result = await runSkiff(["run", "--json", TASK], sandbox);
    assertEquals(result.code, 5, result.stderr);
    const events = parseJsonLines(result.stdout);
    assertEquals(events.filter((event) => event.type === "context.compacted").length, 0);
    const error = events.find((event) => event.type === "error");
    assertStringIncludes(String(error?.message), "fills the model's context window");
    assertStringIncludes(String(error?.message), '"compaction": {"auto": false}');
    // It stopped before sending the request that would not fit.
    for (const request of mock.requests) {
      assert(JSON.stringify(request.messages).length / 4 < 6000, "no request over the window");
    }
    assert(mock.requests.length < 12, `stopped early (${mock.requests.length} requests)`);
  });
});

Deno.test("a summary is recorded; --continue sends the handoff, not the replaced turns; export keeps everything and marks it", async () => {
  const script = [...longTurns(16), { text: "Done." }, { text: "Continued." }];
  await withMockSandbox(script, async (sandbox, mock) => {
    await writeConfig(sandbox.configDir, {
      models: { "mock-model": { context: 16000, output: 1000 } },
    });
    const first = await runSkiff(["run", "--json", TASK], sandbox);
    assertEquals(first.code, 0, first.stderr);
    const events = parseJsonLines(first.stdout);
    const compacted = events.filter((event) => event.type === "context.compacted");
    assert(compacted.some((event) => event.kind === "summary"), JSON.stringify(compacted));
    // The latest handoff is the one a resumed session starts from.
    const summaryAt = mock.requests.findLastIndex(isSummaryRequest);
    assert(summaryAt >= 0, "the model was asked for a handoff");
    const summaryText = script[summaryAt].text!;
    for (const request of mock.requests) {
      assert(JSON.stringify(request.messages).length / 4 <= 16000, "no request over the window");
    }

    // The mock's usage leaves the tool schemas out, so a fresh process that
    // counts them (as real servers do) would find the resumed request near
    // the threshold and compact again; a roomier window keeps this run about
    // what it resumes from, not about another compaction.
    await writeConfig(sandbox.configDir, {
      models: { "mock-model": { context: 24000, output: 1000 } },
    });
    const before = mock.requests.length;
    const second = await runSkiff(
      ["run", "--json", "--continue", "Now write the summary."],
      sandbox,
    );
    assertEquals(second.code, 0, second.stderr);
    const resumed = messagesOf(mock.requests[before]);
    assertEquals(resumed[0].role, "system");
    assert(resumed[1].content!.startsWith(HANDOFF_MARK), resumed[1].content!.slice(0, 80));
    assertStringIncludes(resumed[1].content!, summaryText.slice(0, 200));
    assertStringIncludes(resumed[1].content!, TASK);
    // The replaced turns are not sent again: the first step's words are only in the store.
    assert(!resumed.some((message) => message.content?.startsWith("Step 1:")));
    assertEquals(resumed.at(-1)!.content, "Now write the summary.");

    const sessionId = String(events[0].session_id);
    const exported = await runSkiff(["sessions", "export", sessionId], sandbox);
    assertEquals(exported.code, 0, exported.stderr);
    const { messages } = JSON.parse(exported.stdout) as {
      messages: { role: string; parts: { type: string; text?: string; kind?: string }[] }[];
    };
    const texts = messages.flatMap((message) => message.parts.map((part) => part.text ?? ""));
    for (let step = 1; step <= 4; step++) {
      assert(texts.some((text) => text.startsWith(`Step ${step}:`)), `step ${step} kept`);
    }
    const marker = messages.find((message) => message.role === "compaction");
    assertEquals(marker?.parts[0].kind, "summary");

    const shown = await runSkiff(["sessions", "show", sessionId], sandbox);
    assertEquals(shown.code, 0, shown.stderr);
    assertStringIncludes(shown.stdout, "## Compaction: summary");
    assertStringIncludes(shown.stdout, "Step 1:");
  });
});

Deno.test("a subagent compacts its own history and hands back an answer cut to the limit, naming its session", async () => {
  const answer = Array.from({ length: 600 }, (_, line) => `finding ${line}: the notes module`)
    .join("\n");
  const script: MockTurn[] = [
    {
      toolCalls: [{
        name: "task",
        id: "call_task",
        arguments: { description: "survey notes", prompt: TASK, subagent_type: "general" },
      }],
    },
    ...longTurns(16),
    { text: answer },
    { text: "Done." },
  ];
  await withMockSandbox(script, async (sandbox, mock) => {
    await writeConfig(sandbox.configDir, {
      models: { "mock-model": { context: 16000, output: 1000 } },
    });
    const result = await runSkiff(["run", "--json", "-y", "Survey the notes module."], sandbox);
    assertEquals(result.code, 0, result.stderr);
    const events = parseJsonLines(result.stdout);
    const task = events.find((event) => event.type === "tool.completed" && event.tool === "task");
    const childId = String((task?.metadata as { sessionId: string }).sessionId);

    const exported = await runSkiff(["sessions", "export", childId], sandbox);
    const child = JSON.parse(exported.stdout) as {
      messages: { role: string }[];
      events: { type: string; kind?: string }[];
    };
    assert(child.messages.some((message) => message.role === "compaction"), "child compacted");
    assert(child.events.some((event) => event.type === "context.compacted"));

    const last = messagesOf(mock.requests.at(-1)!);
    const handedBack = last.find((message) => message.role === "tool")!.content!;
    assert(handedBack.length < 13_000, `cut to the limit (${handedBack.length} characters)`);
    assertStringIncludes(handedBack, "finding 0:");
    assertStringIncludes(handedBack, "finding 599:");
    assertStringIncludes(handedBack, `the full answer is stored in its session ${childId}`);
  });
});

Deno.test("the text renderer gives each compaction one line: what was done, tokens before and after", () => {
  const base = { turn: 7, trigger: "threshold" as const, window: 64_000 };
  assertEquals(
    compactionLine({
      ...base,
      kind: "prune",
      tokens_before: 41_200,
      tokens_after: 22_100,
      pruned: 12,
    }),
    "context: pruned 12 old tool outputs, 41k → 22k tokens",
  );
  assertEquals(
    compactionLine({
      ...base,
      kind: "summary",
      tokens_before: 51_000,
      tokens_after: 9_400,
      pruned: 0,
      replaced: 30,
      summary: "## Task",
    }),
    "context: summarised 30 earlier messages into a handoff, 51k → 9k tokens",
  );
  assertStringIncludes(
    compactionLine({
      ...base,
      trigger: "overflow",
      kind: "prune",
      tokens_before: 900,
      tokens_after: 700,
      pruned: 1,
      fallback: "the model wrote an empty summary",
    }),
    "pruned 1 old tool output (the summary was not used) after the endpoint said the request was too long, 900 → 700 tokens",
  );
});

Deno.test('"compaction": {"auto": false} and an endpoint refusing the request as too long: exit 5 with what to do, not a provider error', async () => {
  const refusal: MockTurn = {
    status: 400,
    body: {
      error: {
        message: "This model's maximum context length is 8192 tokens. However, your messages " +
          "resulted in 9100 tokens. Please reduce the length of the messages.",
        type: "invalid_request_error",
        code: "context_length_exceeded",
      },
    },
  };
  await withMockSandbox([refusal], async (sandbox, mock) => {
    await writeConfig(sandbox.configDir, { compaction: { auto: false } });
    const result = await runSkiff(["run", TASK], sandbox);
    assertEquals(result.code, 5, result.stderr);
    assertStringIncludes(result.stderr, "fills the model's context window");
    assertEquals(mock.requests.length, 1, "not sent again");
  });
});
